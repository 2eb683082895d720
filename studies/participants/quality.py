"""Review flags of participants: fast completions, fast items, straight-lining, pasted answers,
the integrity signals of their answers (behaviour on the page, the canary, bots), and answers like
a model's.

The participant admin filters on them and the monitor lists them. The rules themselves are pure,
in `parity.stats.quality` and `parity.stats.quality.behaviour`; here they are applied to a study's stored
rows. Imported participants (a published study's answers) are left out of those: they have no real
times. The model-likeness flags (`STORED_FLAGS`) are computed beside the model runs
(`results.computing.quality`, rules in `parity.stats.quality.likeness`) and kept on the participant
(`Participant.review_signals`, with their figures): they are read here for every participant,
imported ones included.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from django.db.models import Count, F, IntegerField, Q, QuerySet, Sum
from django.db.models.fields.json import KT
from django.db.models.functions import Cast, Coalesce
from django.db.models.lookups import GreaterThan, IsNull, LessThan

from parity.stats import quality
from parity.stats.quality import behaviour
from studies.models import Participant, Response

#: the flags a participant can carry, with the words the pages and the admin show
FLAGS: dict[str, str] = {
    "fast_completion": "fast completion (over 3 SD below the mean time)",
    "fast_items": f"fast items (median under {quality.ITEM_TIME_FLOOR_MS / 1000:g} s per item)",
    "straight_lining": f"one answer to {quality.STRAIGHT_SHARE:.0%} or more of the study items",
    "pasted": "pasted a written answer",
    "left_tab": "left the study's tab while answering",
    "canary": "a written answer carries the canary word (the item was copied to an AI)",
    "honeypot": "filled the hidden field no person sees (a program)",
    "bot_speed": f"answered without the page's script faster than a person reads (under "
    f"{behaviour.FLOOR_BASE_MS} ms + {behaviour.FLOOR_WORDS_PER_SECOND} words/s)",
    "model_like": "answers agree with a model's far more than with other people's",
    "model_text": "written answers closer to a model's output than to any other person's",
}
#: what is said of a participant without asking for review (no flag): a browser that ran no script
#: is no fault, but the behaviour signals then say nothing of them
INFORMATION: dict[str, str] = {
    "no_behaviour": "no behaviour recorded (the page's script did not run)",
}

#: flags computed in `results.computing.quality` and stored on the participant, with their figures
STORED_FLAGS = ("model_like", "model_text")

#: the flags that are, on their own, grounds for rejecting a submission on Prolific: very fast
#: completion (3 SD below the mean) is the only speed criterion Prolific allows; every other flag
#: asks for a look at the answers, and may exclude them from the analysis, never reject by itself
PROLIFIC_REJECTABLE = frozenset({"fast_completion"})


@dataclass
class Answers:
    """One participant's answers to study items (attention checks left out), as the rules read them."""

    durations: list[int] = field(default_factory=list)
    answers: list[str] = field(default_factory=list)
    #: the gold answers of the same items, in the same order ("" where an item has none)
    golds: list[str] = field(default_factory=list)
    pasted: bool = False
    page: PageBehaviour = field(default_factory=lambda: PageBehaviour())

    def straight_lining(self) -> bool:
        return quality.straight_lining(self.answers, self.golds)

    def evidence(self) -> dict[str, dict[str, Any]]:
        found = self.page.evidence()
        modal = quality.modal_answer(self.answers, self.golds)
        if modal is not None and self.straight_lining():
            found = {
                "straight_lining": {
                    "detail": f"“{modal.answer}” to {modal.count} of {modal.of} study items, the gold answer "
                    f"of {modal.gold_count}",
                    "answer": modal.answer,
                    "count": modal.count,
                    "of": modal.of,
                    "gold_count": modal.gold_count,
                },
                **found,
            }
        if self.pasted:
            page = self.page
            found = {
                "pasted": {
                    "detail": f"{page.pastes} pastes recorded; {page.keys} keys pressed for {page.chars} "
                    "characters of written answers",
                    "pastes": page.pastes,
                    "keys": page.keys,
                    "chars": page.chars,
                },
                **found,
            }
        return found


@dataclass
class PageBehaviour:
    """The integrity figures of one participant's answers (attention checks included: a program
    answers them too), summed from what each answer stored in `extra` (`answers_by_participant`)."""

    recorded: int = 0
    pastes: int = 0
    blurs: int = 0
    left_items: int = 0
    hidden_ms: int = 0
    keys: int = 0
    chars: int = 0
    no_script: int = 0
    no_script_fast: int = 0
    invalid: int = 0
    canary: int = 0
    honeypot: int = 0

    def flags(self) -> list[str]:
        on = {
            "left_tab": self.left_items > 0,
            "canary": self.canary > 0,
            "honeypot": self.honeypot > 0,
            "bot_speed": self.no_script > 0 and self.no_script_fast >= behaviour.BOT_SPEED_SHARE * self.no_script,
        }
        return [name for name, flagged in on.items() if flagged]

    def evidence(self) -> dict[str, dict[str, Any]]:
        """Each flag of `flags()`, and the information of `INFORMATION` that holds, with its figures
        and a sentence saying them."""
        figures: dict[str, dict[str, Any]] = {
            "left_tab": {
                "detail": f"the page was hidden during {self.left_items} of {self.recorded} answers, "
                f"{self.hidden_ms / 1000:.1f} s in all; {self.blurs} focus losses",
                "answers": self.left_items,
                "recorded": self.recorded,
                "hidden_ms": self.hidden_ms,
                "blurs": self.blurs,
            },
            "canary": {
                "detail": f"{_answers(self.canary)} {'carries' if self.canary == 1 else 'carry'} the canary word",
                "answers": self.canary,
            },
            "honeypot": {
                "detail": f"the hidden field was filled in {_answers(self.honeypot)}",
                "answers": self.honeypot,
            },
            "bot_speed": {
                "detail": f"{self.no_script_fast} of {self.no_script} answers sent without the page's script "
                "came sooner than their reading floor",
                "answers": self.no_script_fast,
                "without_script": self.no_script,
            },
            "no_behaviour": {
                "detail": f"{_answers(self.no_script)} came without the page's behaviour",
                "answers": self.no_script,
            },
        }
        noted = ["no_behaviour"] if self.no_script else []
        return {name: figures[name] for name in [*self.flags(), *noted]}


def study_flags(completion_seconds: dict[int, float], answers: dict[int, Answers]) -> dict[int, list[str]]:
    """Flags per participant id, for the participants of one study (the 3-SD rule compares them)."""
    fast = quality.fast_completions(completion_seconds)
    quick = quality.fast_items({pk: a.durations for pk, a in answers.items()})
    flagged: dict[int, list[str]] = {}
    for pk in set(completion_seconds) | set(answers):
        given = answers.get(pk, Answers())
        marks = [
            name
            for name, on in (
                ("fast_completion", pk in fast),
                ("fast_items", pk in quick),
                ("straight_lining", given.straight_lining()),
                ("pasted", given.pasted),
            )
            if on
        ] + given.page.flags()
        if marks:
            flagged[pk] = marks
    return flagged


def _figure(path: str) -> Coalesce:
    """The whole number an answer stored at `path` (keys of `extra` joined by `__`), 0 where it
    stored none (or null)."""
    return Coalesce(Cast(KT(f"extra__{path}"), IntegerField()), 0)


#: the answer's page recorded its behaviour; it sent none (no script ran); what it sent was refused
_RECORDED = Q(extra__behaviour__status=behaviour.RECORDED)
_NO_SCRIPT = Q(extra__behaviour__status=behaviour.NONE)
_INVALID = Q(extra__behaviour__status=behaviour.INVALID)
#: the item had a text box: the page counted the keys pressed in it (null where it had none)
_TYPED = Q(IsNull(KT("extra__behaviour__keys"), False))


def answers_by_participant(
    responses: QuerySet[Response], *, given: Mapping[int, GivenAnswers] | None = None
) -> dict[int, Answers]:
    """The answers of `responses` by participant id, as the rules read them. The page's figures are
    summed per participant by the database, which reads them out of each answer's `extra`: parsing
    every answer's JSON here was most of the flags' cost in a large study. `given`: the same
    participants' answers to study items where they have been read already (a study's results hold
    them as columns), so that they are not read a second time."""
    # an answer that stored nothing in extra (imported, or written past the page) adds no figure
    figures = (
        responses.exclude(extra={})
        .values("participant_id")
        .annotate(
            recorded=Count("pk", filter=_RECORDED),
            pastes=Sum(_figure("behaviour__pastes"), filter=_RECORDED, default=0),
            blurs=Sum(_figure("behaviour__blurs"), filter=_RECORDED, default=0),
            left_items=Count("pk", filter=_RECORDED & Q(GreaterThan(_figure("behaviour__hidden"), 0))),
            hidden_ms=Sum(_figure("behaviour__hidden_ms"), filter=_RECORDED, default=0),
            keys=Sum(_figure("behaviour__keys"), filter=_RECORDED & _TYPED, default=0),
            chars=Sum(_figure("behaviour__chars"), filter=_RECORDED & _TYPED, default=0),
            no_script=Count("pk", filter=_NO_SCRIPT),
            no_script_fast=Count("pk", filter=_NO_SCRIPT & Q(LessThan(F("duration_ms"), _figure("reading_floor_ms")))),
            invalid=Count("pk", filter=_INVALID),
            canary=Count("pk", filter=Q(extra__canary=True)),
            honeypot=Count("pk", filter=Q(extra__honeypot=True)),
            # a paste into a written answer's box, counted by the page, is a paste whichever box it was
            pasted=Count(
                "pk", filter=Q(extra__pasted=True) | (Q(GreaterThan(_figure("behaviour__pastes"), 0)) & _TYPED)
            ),
        )
    )
    answers: dict[int, Answers] = {}
    for row in figures:
        page = PageBehaviour(
            recorded=row["recorded"],
            pastes=row["pastes"],
            blurs=row["blurs"],
            left_items=row["left_items"],
            hidden_ms=row["hidden_ms"],
            keys=row["keys"],
            chars=row["chars"],
            no_script=row["no_script"],
            no_script_fast=row["no_script_fast"],
            invalid=row["invalid"],
            canary=row["canary"],
            honeypot=row["honeypot"],
        )
        answers[row["participant_id"]] = Answers(pasted=row["pasted"] > 0, page=page)
    if given is not None:
        for pk, own in given.items():
            mine = answers.setdefault(pk, Answers())
            mine.durations, mine.answers, mine.golds = own.durations, own.answers, own.golds
        return answers
    rows = responses.filter(is_attention_check=False).values_list(
        "participant_id", "answer", "raw_answer", "duration_ms", "item__gold"
    )
    for pk, answer, raw, duration, gold in rows:
        mine = answers.setdefault(pk, Answers())
        mine.durations.append(duration)
        mine.answers.append(given_answer(answer, raw))
        mine.golds.append(gold.strip().lower())
    return answers


def given_answer(answer: str, raw: str) -> str:
    """The answer the rules compare: the stored one, or where none was stored (a written answer) the
    text as typed, trimmed and lower-cased."""
    return answer or raw.strip().lower()


@dataclass(frozen=True)
class GivenAnswers:
    """One participant's answers to study items read elsewhere, as `Answers` holds them: durations,
    answers (`given_answer`) and the items' gold answers trimmed and lower-cased, in one order."""

    durations: list[int]
    answers: list[str]
    golds: list[str]


def stored_flags(signals: dict[str, Any]) -> list[str]:
    """The flags kept in a participant's `review_signals`, in the order of `FLAGS`."""
    return [name for name in FLAGS if name in (signals or {})]


def evidence(name: str, signals: dict[str, Any], computed: dict[str, dict[str, Any]] | None = None) -> str:
    """A flag in words, with its figures when it has any: the stored ones (`signals`, a
    participant's `review_signals`) carry theirs; those judged on the participant's own answers
    take theirs from `computed` (one participant's entry of `participant_evidence`, or
    `Answers.evidence()`)."""
    stored = (signals or {}).get(name) or {}
    if stored.get("evidence"):
        return f"{FLAGS[name]}: {stored['evidence']}"
    detail = ((computed or {}).get(name) or {}).get("detail")
    return f"{FLAGS[name]}: {detail}" if detail else FLAGS[name]


def exclusion_reason(flags: list[str], *, limit: int = 200) -> str:
    """The reason suggested when excluding participants with these flags (at most `limit`
    characters, what `Participant.exclusion_reason` holds), worded for Prolific's rules: only a very
    fast completion may be cited to reject a submission; every other flag is for review."""
    chosen = [name for name in FLAGS if name in flags]
    if not chosen:
        return ""
    rejectable = [name.replace("_", " ") for name in chosen if name in PROLIFIC_REJECTABLE]
    if len(rejectable) == len(chosen):
        clause = " (3 SD below the mean time: a Prolific rejection reason)"
    elif rejectable:
        clause = f"; only {', '.join(rejectable)} is a Prolific rejection reason, the rest are for review"
    else:
        clause = "; for review: not a Prolific rejection reason"
    named = ", ".join(name.replace("_", " ") for name in chosen)
    said = f"excluded from the analysis after review: {named}"
    if len(said) + len(clause) > limit:
        said = f"excluded from the analysis after review of {len(chosen)} flags"
    return f"{said}{clause}"[:limit]


def participant_flags(
    participants: QuerySet[Participant], *, given: Mapping[int, GivenAnswers] | None = None
) -> dict[int, list[str]]:
    """The review flags of `participants` (ids to flag names), each judged within its own study,
    with the stored ones (`STORED_FLAGS`). `given`: every one of them's answers to study items,
    where already read (see `answers_by_participant`)."""
    flagged = _behaviour_flags(participants, given)
    for pk, signals in participants.exclude(review_signals={}).values_list("pk", "review_signals"):
        kept = stored_flags(signals)
        if kept:
            marks = flagged.setdefault(pk, [])
            marks.extend(name for name in kept if name not in marks)
    return flagged


def _behaviour_flags(
    participants: QuerySet[Participant], given: Mapping[int, GivenAnswers] | None = None
) -> dict[int, list[str]]:
    chosen = participants.filter(is_imported=False)
    completions = Participant.objects.filter(
        study__in=chosen.values("study_id"), completed_at__isnull=False, is_imported=False
    ).values_list("pk", "study_id", "started_at", "completed_at")
    by_study: dict[int, dict[int, float]] = defaultdict(dict)
    study_of: dict[int, int] = {}
    for pk, study_id, started, completed in completions:
        assert completed is not None  # filtered on above
        by_study[study_id][pk] = (completed - started).total_seconds()
        study_of[pk] = study_id
    answers = answers_by_participant(Response.objects.filter(participant__in=chosen.values("pk")), given=given)
    answers_by_study: dict[int | None, dict[int, Answers]] = defaultdict(dict)
    for pk, own in answers.items():
        answers_by_study[study_of.get(pk)][pk] = own
    flagged: dict[int, list[str]] = {}
    study_ids: set[int | None] = {*by_study, *answers_by_study}
    for study in study_ids:
        flagged.update(study_flags(by_study.get(study, {}) if study else {}, answers_by_study.get(study, {})))
    wanted = set(chosen.values_list("pk", flat=True))
    return {pk: marks for pk, marks in flagged.items() if pk in wanted}


def participant_evidence(participants: QuerySet[Participant]) -> dict[int, dict[str, dict[str, Any]]]:
    """The figures behind the integrity flags of `participants` (ids to {flag: {"detail": sentence,
    figures...}}), for the flags judged on a participant's own answers (straight_lining, pasted,
    left_tab, canary, honeypot, bot_speed) and for `INFORMATION` (no_behaviour)."""
    answers = answers_by_participant(
        Response.objects.filter(participant__in=participants.filter(is_imported=False).values("pk"))
    )
    found = {pk: given.evidence() for pk, given in answers.items()}
    return {pk: figures for pk, figures in found.items() if figures}


def participants_flagged(participants: QuerySet[Participant], flag: str) -> QuerySet[Participant]:
    """`participants` narrowed to those carrying `flag` (one of `FLAGS`)."""
    return participants.filter(pk__in=[pk for pk, marks in participant_flags(participants).items() if flag in marks])


def _answers(n: int) -> str:
    return f"{n} answer" if n == 1 else f"{n} answers"
