"""Each of the checklist's 71 answers held to the study's records, for the published implicature study
(imported) and a native study with every optional feature (practice questions and a comprehension
check, explanations after the items, a stratified sample, a Prolific prescreening with a Prolific
study, a power analysis, attention checks and an exclusion, closing questions, a model run).

Every answer names the records it rests on (`Answer.records`, what `manage.py checklist_audit`
prints), and each record's value is read here again from the database, by the ORM and without the
results' code: a record the answer misreads, or an answer that rests on nothing, fails. The figures
an answer states are then compared with its records."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from datetime import timedelta
from statistics import median
from typing import Any

import pytest
from django.db.models import Count, Max, Min

from annotation.models import Item
from modelruns.models import ModelResponse, ModelRun
from parity.reporting.checklist import COMPUTED, ENTRIES, Answer, Status
from parity.stats.crossed import METHOD as CROSSED_TEST
from prolific.models import ProlificStudy
from results.computing.assemble import study_results_tree
from results.computing.tree import StudyResults
from results.loading.selectors import load_study_data
from results.pipeline import study_checklist
from studies.models import Participant, Preregistration, Response, Study, Unit, UnitItem
from tests.factories import Bot, pid, small_study
from tests.participation.test_training import CHECK, PRACTICE
from tests.results.conftest import FLIP, model_run

pytestmark = pytest.mark.django_db

FULL_NAME = "every optional feature"
#: the closing answers of the three who complete (the third is excluded for failed attention checks)
CLOSING = [
    {"age": "30", "gender": "woman", "ai_tool": "no", "seen_before": "no"},
    {"age": "42", "gender": "man", "ai_tool": "some", "seen_before": "yes"},
    {"age": "25", "gender": "woman", "ai_tool": "no", "seen_before": "no"},
]


def _explained(bot: Bot, choose: Callable[[Item], str] | None = None) -> None:
    """Answer every item, with an explanation on each (the study asks after every item)."""
    while bot.participant.step == Participant.Step.ITEMS:
        item_id, position = bot.current_form(bot.step().content.decode())
        item = Item.objects.get(pk=item_id)
        answer = choose(item) if choose else item.gold
        bot.post(
            "answer", {"item": item_id, "position": position, "answer": answer, "explanation": f"{answer}: said so"}
        )


@pytest.fixture(scope="module")
def full(world, implicature_source) -> Study:
    from tests.results.computing.test_training_results import _train

    study = small_study(
        FULL_NAME,
        units=2,
        unit_size=4,
        per_unit=2,
        attention_checks=2,
        exclude_at=2,
        estimated_minutes=30,
        reward_pence=450,
        practice_questions=PRACTICE,
        comprehension_questions=CHECK,
        comprehension_tries=2,
        explanations=Study.Explanations.EVERY,
        item_sampling="stratified",
        sample_size=8,
        sample_seed=1234,
        closing_questions=["age", "gender", "ai_tool", "seen_before"],
        prolific_filters={"age_min": 18, "age_max": 65, "first_languages": ["19"], "exclude_earlier": True},
        population="adult native English speakers",
        paper_title="People and models on implicature",
    )
    ProlificStudy.objects.create(study=study, prolific_id="6a2cfull", places=6, bonus_per_correct_pence=2)
    right = ["Say whether the answer means yes or no", "no"]
    bots = [Bot(study, pid(40 + n)) for n in range(4)]
    _train(bots[0], ["no", "ready"], [right])
    _train(bots[1], ["yes", "ready"], [["Write a story", "no"], right])
    _train(bots[2], ["no", "ready"], [right])
    _train(bots[3], ["yes", "not ready"], [["Write a story", "no"], ["Write a story", "yes"]])  # screened out
    _explained(bots[0])
    _explained(bots[1], lambda item: item.gold if item.is_attention_check else FLIP[item.gold])
    # fails both attention checks: excluded
    _explained(bots[2], lambda item: "no" if item.is_attention_check else item.gold)
    for bot, closing in zip(bots[:3], CLOSING, strict=True):
        assert bot.client.post(f"/s/{study.link}/closing/", closing).status_code == 302
    for bot, minutes in zip(bots, (3, 5, 4, 1), strict=True):
        person = bot.participant
        Participant.objects.filter(pk=person.pk).update(
            training_ended_at=person.training_started_at + timedelta(minutes=minutes)
        )
    golds = dict(Item.objects.filter(unititem__unit__study=study, is_attention_check=False).values_list("key", "gold"))
    model_run(study, "tiny-lm", {"variant": "ranking", "k": 0, "shots_seed": 0, "template": 2}, golds)
    study.refresh_from_db()
    return study


_CHECKLISTS: dict[int, tuple[Study, StudyResults, dict[str, Answer]]] = {}


def _checklist(pk: int) -> tuple[Study, StudyResults, dict[str, Answer]]:
    """The study's checklist, computed once per study for the module's many cases."""
    if pk not in _CHECKLISTS:
        study = Study.objects.get(pk=pk)
        results = study_results_tree(load_study_data(study), n_boot=200)
        _CHECKLISTS[pk] = (study, results, {answer.entry.id: answer for answer in study_checklist(study, results)})
    return _CHECKLISTS[pk]


# -- the records, read again from the database ------------------------------------------------------


def _analysed(study: Study):
    return Participant.objects.filter(study=study, excluded=False, status=Participant.Status.COMPLETED)


def _answers(study: Study):
    return Response.objects.filter(participant__in=_analysed(study), is_attention_check=False)


def _items_per_unit(study: Study) -> list[int]:
    return list(
        Unit.objects.filter(study=study)
        .annotate(n=Count("unit_items", filter=~_attention("unit_items__item")))
        .values_list("n", flat=True)
    )


def _attention(prefix: str):
    from django.db.models import Q

    return Q(**{f"{prefix}__is_attention_check": True})


def _median_minutes(pairs) -> float | None:
    seconds = [(end - start).total_seconds() for start, end in pairs if start is not None and end is not None]
    return median(seconds) / 60 if seconds else None


def _closing(study: Study) -> list[dict[str, Any]]:
    return [answers or {} for answers in _analysed(study).values_list("closing_answers", flat=True)]


def _note(study: Study, entry_id: str) -> str | None:
    return (study.checklist_notes or {}).get(entry_id) or None


def _power(study: Study, key: str) -> Any:
    return (study.power_analysis or {}).get(key)


def _study_field(study: Study, name: str) -> Any:
    value = getattr(study, name)
    if name in ("practice_questions", "comprehension_questions"):
        return len(value or [])
    if name == "prolific_filters":
        return json.dumps(value, sort_keys=True)
    if name == "instructions_text":
        return bool(value.strip())
    if name == "sample_seed":
        return value if study.item_sampling != "all" else None
    return value


def _platform(study: Study) -> str:
    if study.is_imported:
        return "imported"
    return "prolific" if ProlificStudy.objects.filter(study=study).exists() else "link"


def _prolific(study: Study) -> ProlificStudy | None:
    return ProlificStudy.objects.filter(study=study).first()


def _frozen(study: Study) -> Preregistration | None:
    found = Preregistration.objects.filter(study=study, frozen_at__isnull=False).first()
    return found


def _seen(study: Study, said: str) -> int | None:
    if "seen_before" not in study.closing_questions:
        return None
    people = Participant.objects.filter(study=study, is_imported=False)
    return sum(
        (answers or {}).get("seen_before") == said for answers in people.values_list("closing_answers", flat=True)
    )


def _trained(study: Study):
    return Participant.objects.filter(study=study, training_started_at__isnull=False)


#: each record an answer may rest on, read from the database (`results` only for the analysis's own
#: settings, which no record of the study holds)
READERS: dict[str, Callable[[Study, StudyResults], Any]] = {
    "participants.entered": lambda s, r: Participant.objects.filter(study=s).count(),
    "participants.completed": lambda s, r: Participant.objects.filter(study=s, status="completed").count(),
    "participants.screened_out": lambda s, r: Participant.objects.filter(study=s, status="screened_out").count(),
    "participants.declined": lambda s, r: Participant.objects.filter(study=s, status="declined").count(),
    "participants.returned": lambda s, r: Participant.objects.filter(study=s, status="returned").count(),
    "participants.timed_out": lambda s, r: Participant.objects.filter(study=s, status="timed_out").count(),
    "participants.in_progress": lambda s, r: Participant.objects.filter(study=s, status="active").count(),
    "participants.excluded": lambda s, r: Participant.objects.filter(study=s, excluded=True).count(),
    # the checklist's results are unfiltered: no flagged person is left out of them
    "participants.flagged_left_out": lambda s, r: None,
    "human.n_annotators": lambda s, r: _analysed(s).filter(responses__isnull=False).distinct().count(),
    "human.n_items": lambda s, r: _answers(s).values("item").distinct().count(),
    "human.n_answers": lambda s, r: _answers(s).count(),
    "items in the study's item set": lambda s, r: Item.objects.filter(
        benchmark=s.benchmark, split=s.design["split"], is_attention_check=False
    ).count(),
    "items in the study's units": lambda s, r: (
        UnitItem.objects.filter(unit__study=s, item__is_attention_check=False).values("item").distinct().count()
    ),
    "study.sample_pool": lambda s, r: s.sample_pool,
    "unit capacity, fewest": lambda s, r: Unit.objects.filter(study=s).aggregate(n=Min("capacity"))["n"],
    "unit capacity, most": lambda s, r: Unit.objects.filter(study=s).aggregate(n=Max("capacity"))["n"],
    "items per unit, fewest": lambda s, r: min(_items_per_unit(s)),
    "items per unit, most": lambda s, r: max(_items_per_unit(s)),
    "model runs": lambda s, r: ModelRun.objects.filter(study=s, status=ModelRun.Status.DONE).count(),
    "paired tests": lambda s, r: ModelRun.objects.filter(study=s, status=ModelRun.Status.DONE).count(),
    "paired test method": lambda s, r: CROSSED_TEST,
    "power": lambda s, r: s.power_analysis or None,
    "preregistration.frozen_at": lambda s, r: (f := _frozen(s)) and f.frozen_at.date().isoformat(),
    "preregistration.sha256": lambda s, r: (f := _frozen(s)) and f.sha256,
    "prolific study": lambda s, r: _prolific(s) is not None,
    "methods.platform": lambda s, r: _platform(s),
    "refused at entry for an earlier study of the group": lambda s, r: len(s.refused_earlier),
    "closing answers: seen before, yes": lambda s, r: _seen(s, "yes"),
    "closing answers: seen before, no": lambda s, r: _seen(s, "no"),
    "closing answers: ai tool, yes": lambda s, r: sum(a.get("ai_tool") in ("some", "most") for a in _closing(s)),
    "closing answers: ai tool, answered": lambda s, r: sum(
        a.get("ai_tool") not in (None, "", "prefer_not_to_say") for a in _closing(s)
    ),
    "closing answers": lambda s, r: sum(bool(a) for a in _closing(s)),
    "closing: participants asked": lambda s, r: _analysed(s).filter(responses__isnull=False).distinct().count(),
    "study.closing_questions: ai_tool": lambda s, r: "ai_tool" in s.closing_questions,
    "study.closing_questions: demographics": lambda s, r: ", ".join(
        key for key in ("age", "gender", "first_language", "education") if key in s.closing_questions
    ),
    "training: began": lambda s, r: _trained(s).count(),
    "training: screened out": lambda s, r: _trained(s).filter(status="screened_out").count(),
    "training: practice answers": lambda s, r: sum(len(p.practice_answers) for p in _trained(s)),
    "training: practice answers right": lambda s, r: sum(
        answer["correct"] for p in _trained(s) for answer in p.practice_answers
    ),
    "training: median minutes": lambda s, r: _median_minutes(
        _trained(s).values_list("training_started_at", "training_ended_at")
    ),
    "median minutes to complete": lambda s, r: _median_minutes(
        Participant.objects.filter(study=s, is_imported=False).values_list("started_at", "completed_at")
    ),
    "bonus per correct answer (pence)": lambda s, r: (p := _prolific(s)) and p.bonus_per_correct_pence or 0,
    "explanations given": lambda s, r: Response.objects.filter(participant__study=s).exclude(explanation="").count(),
    "people who gave an explanation": lambda s, r: (
        Response.objects.filter(participant__study=s).exclude(explanation="").values("participant").distinct().count()
    ),
    # the analysis's own settings
    "statistics.ci_level": lambda s, r: r.methods.statistics.ci_level,
    "statistics.human_ci_method": lambda s, r: r.methods.statistics.human_ci_method,
    "statistics.gap_ci_method": lambda s, r: r.methods.statistics.gap_ci_method if r.models else None,
    "statistics.n_boot": lambda s, r: 200 if r.models else None,
    "robustness rows": lambda s, r: (
        sum(row.rule != "gold_errors_dropped" for row in r.robustness.rows) if r.robustness else 0
    ),
}


def _read(study: Study, results: StudyResults, name: str) -> Any:
    """The value the database holds for the record `name`."""
    if name in READERS:
        return READERS[name](study, results)
    if match := re.fullmatch(r"checklist note (\S+)", name):
        return _note(study, match[1])
    if match := re.fullmatch(r"checklist correction (\S+?)(\.reason)?", name):
        found = (study.checklist_corrections or {}).get(match[1]) or {}
        return found.get("reason" if match[2] else "text")
    if match := re.fullmatch(r"original_study\.(\w+)(\.page)?", name):
        found = (study.original_study or {}).get(match[1]) or {}
        return found.get("page" if match[2] else "text")
    if match := re.fullmatch(r"power\.(\w+)", name):
        return _power(study, match[1])
    if match := re.fullmatch(r"study\.design\.(\w+)", name):
        return study.design.get(match[1])
    if match := re.fullmatch(r"study\.(\w+)", name):
        return _study_field(study, match[1])
    if match := re.fullmatch(r"model run (\d+): items", name):
        return ModelResponse.objects.filter(run_id=int(match[1])).values("item").distinct().count()
    if match := re.fullmatch(r"model run (\d+): answers", name):
        return ModelResponse.objects.filter(run_id=int(match[1])).count()
    raise AssertionError(f"no reader for the record {name!r}: say how the database holds it")


STUDIES = ["published", "full"]


@pytest.fixture(scope="module")
def published(baseline) -> Study:
    """The published study with a model run beside it, as a paper compares them."""
    study = Study.objects.get(pk=baseline.study_id)
    golds = dict(Item.objects.filter(unititem__unit__study=study).values_list("key", "gold"))
    model_run(study, "tiny-lm", {"variant": "ranking", "k": 0, "shots_seed": 0, "template": 1}, golds)
    return study


@pytest.fixture
def study_pk(request, published, full) -> int:
    # both module-wide studies are made before the test's transaction, never inside it
    return published.pk if request.param == "published" else full.pk


@pytest.mark.parametrize("study_pk", STUDIES, indirect=True)
@pytest.mark.parametrize("entry_id", [entry.id for entry in ENTRIES])
def test_each_answer_rests_on_records_the_database_holds(study_pk, entry_id) -> None:
    study, results, answers = _checklist(study_pk)
    answer = answers[entry_id]
    assert answer.records, f"{entry_id} ({answer.shown_text}) names no record it rests on"
    for record in answer.records:
        assert record.value == _read(study, results, record.name), f"{entry_id}: {record.name}"


#: the records whose values an answer states, by entry: each must be printed in the answer as the
#: record holds it (a count as its digits, minutes to one decimal)
STATED = {
    "0.8": ["items in the study's item set"],
    "0.9": ["model run *: items"],
    "0.10": ["model runs"],
    "1.1": ["human.n_annotators", "participants.entered", "participants.completed", "participants.excluded"],
    "1.2": ["human.n_items"],
    "1.2.1": ["items in the study's units", "study.sample_seed", "study.sample_pool"],
    "1.3": ["unit capacity, fewest", "unit capacity, most"],
    "1.4": ["items per unit, fewest", "items per unit, most"],
    "1.8": ["power.people", "power.units", "power.items_per_person"],
    "1.8.1": ["power.people", "human.n_annotators"],
    "2.5": ["closing answers: seen before, yes", "closing answers: seen before, no"],
    "2.6": ["study.practice_questions", "training: began"],
    "2.6.1": [
        "study.practice_questions",
        "study.comprehension_questions",
        "study.comprehension_tries",
        "training: began",
        "training: screened out",
        "training: practice answers",
        "training: practice answers right",
    ],
    "2.6.2": ["training: screened out"],
    "2.6.2.1": ["training: median minutes"],
    "2.7.1": ["study.estimated_minutes", "median minutes to complete"],
    "3.1": ["items per unit, fewest", "study.attention_checks"],
    "3.2.1": ["study.attention_checks", "study.exclude_at"],
    "3.2.2": ["participants.excluded", "participants.entered"],
    "3.5.1": ["closing answers: ai tool, yes", "closing answers: ai tool, answered"],
    "3.6": ["explanations given", "people who gave an explanation"],
    "4.1": ["paired tests"],
    "4.2": ["statistics.n_boot"],
    "4.2.1": ["human.n_annotators"],
    "4.6": ["participants.excluded"],
    "5.1.1": ["closing answers", "closing: participants asked"],
    "5.1.3": ["median minutes to complete"],
    "5.1.5": [
        "participants.entered",
        "participants.completed",
        "participants.screened_out",
        "participants.declined",
        "participants.returned",
        "participants.timed_out",
        "participants.in_progress",
    ],
}


def _printed(value: Any) -> str:
    return f"{value:.1f}" if isinstance(value, float) else str(value)


@pytest.mark.parametrize("study_pk", STUDIES, indirect=True)
def test_the_figures_an_answer_states_are_its_records(study_pk) -> None:
    study, results, answers = _checklist(study_pk)
    checked = 0
    for entry_id, names in STATED.items():
        answer = answers[entry_id]
        if answer.status is not Status.ANSWERED or answer.source != COMPUTED:
            continue
        for record in answer.records:
            if not any(re.fullmatch(re.escape(name).replace(r"\*", r"\d+"), record.name) for name in names):
                continue
            if record.value is None or isinstance(record.value, bool):
                continue
            if record.name == "participants.excluded" and entry_id == "4.6" and not record.value:
                continue  # 4.6 names the excluded only where it puts them back
            shown = _printed(record.value)
            assert re.search(rf"(?<![\d.]){re.escape(shown)}(?![\d]|\.\d)", answer.text), (
                entry_id,
                record,
                answer.text,
            )
            checked += 1
    assert checked >= (40 if not study.is_imported else 8)


@pytest.mark.parametrize("study_pk", STUDIES, indirect=True)
def test_each_computed_verdict_follows_its_records(study_pk) -> None:
    study, results, answers = _checklist(study_pk)
    verdict = {entry_id: answer.verdict for entry_id, answer in answers.items()}
    people = Participant.objects.filter(study=study)
    prolific = _prolific(study)
    if study.is_imported:
        # the import's own settings (no attention checks, no power analysis, no frozen plan, Parity's
        # pages) are not the original study's: Parity leaves these to the researcher
        left = ("0.7", "1.8", "1.10", "2.2", "2.3", "2.3.1", "2.3.2", "2.5", "2.7.2", "2.7.2.1", "2.7.3", "2.7.3.1")
        for entry_id in (*left, "1.8.1", "3.1.1", "3.2", "3.2.1", "3.3.1", "3.6", "5.1.4"):
            assert verdict[entry_id] == "—", (entry_id, answers[entry_id].shown_text)
        assert not re.search(r"\d+ (entered|completed|excluded)", answers["1.1"].text)
        assert "Parity's web pages" not in answers["3.3"].text and "web pages" not in answers["3.3"].text
        assert answers["3.1"].text.endswith("whether in one sitting is not known for the original study")
        return
    checked = study.attention_checks and study.exclude_at or people.filter(excluded=True).exists()
    assert verdict["3.2"] == ("Yes" if checked else "No")
    assert verdict["2.3"] == ("Yes" if prolific and study.prolific_filters or study.refused_earlier else "No")
    assert verdict["2.6"] == ("Yes" if study.practice_questions or study.comprehension_questions else "No")
    screened_out = people.filter(status=Participant.Status.SCREENED_OUT).count()
    assert verdict["2.6.2"] == ("Partial" if screened_out else "Yes")
    bonus = prolific.bonus_per_correct_pence if prolific else 0
    assert verdict["2.7.2"] == ("Yes" if bonus else "No")
    # a bonus per correct answer pays people differently
    assert verdict["2.7.3"] == ("Partial" if bonus else "Yes")
    assert verdict["2.7.3.1"] == ("Yes" if bonus else "N/A")
    assert verdict["1.8"] == ("Yes" if study.power_analysis else "No")
    assert verdict["3.6"] == ("No" if study.explanations == Study.Explanations.OFF else "Yes")
    assert verdict["4.1"] == ("Yes" if ModelRun.objects.filter(study=study).exists() else "N/A")
    # no group of studies: nobody was refused at entry for one, and the answer does not say so
    if not study.group:
        assert "of the group" not in answers["2.3.2"].text and verdict["2.3.2"] == "Partial"
    # a figure of people is never "1 people"
    assert not any(re.search(r"\b1 people\b", answer.text) for answer in answers.values())
