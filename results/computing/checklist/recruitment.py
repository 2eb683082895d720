"""The checklist's recruitment entries (2.x): who could take part, who was kept out, training and pay."""

from __future__ import annotations

import json

from parity import panels
from parity.reporting.checklist import BY_ID, Answer, Record, computed, entered, not_answered, not_applicable, note_name
from prolific.currency import money
from results.computing.checklist.answering import IMPORTED, NOT_KNOWN, answers, imported, missing, original
from results.computing.tree import Recruiting, StudyResults, TrainingPhase
from studies.design.screening import Screening
from studies.models import Study

# -- recruitment -----------------------------------------------------------------------------------


@answers("2.1")
def population(study: Study, results: StudyResults) -> Answer:
    text = results.methods.reporting.population
    record = Record("study.population", text)
    return entered(BY_ID["2.1"], f"Yes: {text}", record) if text else missing("2.1", record)


@answers("2.1.1")
def population_criteria(study: Study, results: StudyResults) -> Answer:
    return missing("2.1.1")


@answers("2.2")
def sampling_strategy(study: Study, results: StudyResults) -> Answer:
    platform = results.methods.platform
    if platform == "imported":
        return _original_unknown("2.2", study)
    record = Record("prolific study", results.methods.prolific is not None)
    if platform == "prolific":
        return computed(BY_ID["2.2"], "Crowdsource (Prolific), first come first served", record)
    if results.methods.panel:
        return computed(BY_ID["2.2"], _panel_strategy(study), Record("study.panel", study.panel))
    return computed(
        BY_ID["2.2"],
        "Through the study's link, first come first served; no Prolific study was recorded, so how people "
        "came by the link is the researchers' to say",
        record,
    )


def _panel_strategy(study: Study) -> str:
    """How a panel other than Prolific recruits (`Study.panel`)."""
    name = study.recruiting_panel.name
    if study.panel == panels.SONA:
        return f"A participant pool ({name}), through the study's link, first come first served"
    if study.panel == panels.LAB:
        return f"Through {name}, to the people the researchers gave it; how they were chosen is the researchers' to say"
    return f"Crowdsource ({name}), first come first served"


@answers("2.3")
def recruitment_quality_control(study: Study, results: StudyResults) -> Answer:
    recruiting = _recruiting("2.3", study, results)
    if not isinstance(recruiting, Recruiting):
        return recruiting
    return computed(BY_ID["2.3"], "Yes" if _screened(recruiting, results) else "No", *_screening(recruiting, results))


@answers("2.3.1")
def recruitment_criteria(study: Study, results: StudyResults) -> Answer:
    recruiting = _recruiting("2.3.1", study, results)
    if not isinstance(recruiting, Recruiting):
        return recruiting
    records = _screening(recruiting, results, Record("study.group", study.group))
    if not _screened(recruiting, results):
        return not_applicable(BY_ID["2.3.1"], "nobody was prescreened or refused at recruitment", *records)
    said = (
        [Screening.from_json(recruiting.prescreening.to_json()).describe()] if _prescreened(recruiting, results) else []
    )
    if study.group:
        said.append(f"People who had taken part in another study of the group {study.group!r} were refused at entry.")
    return computed(BY_ID["2.3.1"], " ".join(part for part in said if part), *records)


@answers("2.3.2")
def recruitment_exclusions(study: Study, results: StudyResults) -> Answer:
    recruiting = _recruiting("2.3.2", study, results)
    if not isinstance(recruiting, Recruiting):
        return recruiting
    records = _screening(recruiting, results)
    if not _screened(recruiting, results):
        return not_applicable(BY_ID["2.3.2"], "nobody was prescreened or refused at recruitment", *records)
    n = recruiting.refused_earlier_participation
    refused = f"{n} {'person' if n == 1 else 'people'}"
    if not study.group:
        # only a group's studies refuse people at entry: without one, Prolific's prescreening alone kept people out
        return computed(
            BY_ID["2.3.2"],
            "Partial: Prolific does not say how many its prescreening kept out; Parity refused no one at entry "
            "(the study belongs to no group of studies)",
            *records,
            Record("study.group", study.group),
        )
    unseen = " (Prolific does not say how many its prescreening kept out)" if _prescreened(recruiting, results) else ""
    return computed(
        BY_ID["2.3.2"],
        f"{refused} refused at entry for an earlier study of the group{unseen}",
        *records,
        Record("study.group", study.group),
    )


def _recruiting(entry_id: str, study: Study, results: StudyResults) -> Recruiting | Answer:
    """The study's recruitment record, or the answer when there is none to read."""
    if results.methods.platform == "imported":
        return _original_unknown(entry_id, study)
    return results.methods.recruiting or missing(entry_id)


def _original_unknown(entry_id: str, study: Study) -> Answer:
    """An imported study's recruitment and pay: the original study's, which its paper reports and
    Parity's import does not hold (the researcher's note answers it)."""
    return not_answered(
        BY_ID[entry_id], f"{NOT_KNOWN} ({IMPORTED})", imported(study), Record(note_name(entry_id), None)
    )


def _screening(recruiting: Recruiting, results: StudyResults, *more: Record) -> tuple[Record, ...]:
    """The records who was kept out rests on: the prescreening set, whether a Prolific study applied
    it, and the people refused at entry for an earlier study of the group."""
    return (
        Record("study.prolific_filters", json.dumps(recruiting.prescreening.to_json(), sort_keys=True)),
        Record("prolific study", results.methods.prolific is not None),
        Record("refused at entry for an earlier study of the group", recruiting.refused_earlier_participation),
        *more,
    )


def _prescreened(recruiting: Recruiting, results: StudyResults) -> bool:
    """Whether Prolific's prescreening applied: filters set on a study that Prolific ran (a study
    without a Prolific study keeps its filters, but nothing applied them)."""
    return recruiting.prescreening.is_set and results.methods.platform == "prolific"


def _screened(recruiting: Recruiting, results: StudyResults) -> bool:
    return _prescreened(recruiting, results) or recruiting.refused_earlier_participation > 0


@answers("2.4")
def author_baseliners(study: Study, results: StudyResults) -> Answer:
    return missing("2.4")


@answers("2.5")
def contamination(study: Study, results: StudyResults) -> Answer:
    recruiting = _recruiting("2.5", study, results)
    if not isinstance(recruiting, Recruiting):
        return recruiting
    seen = recruiting.seen_before
    records = (
        *_screening(recruiting, results)[:2],
        Record("closing answers: seen before, yes", None if seen is None else seen.yes),
        Record("closing answers: seen before, no", None if seen is None else seen.no),
    )
    said = []
    if _prescreened(recruiting, results) and recruiting.prescreening.exclude_earlier:
        said.append("participants of the researchers' earlier studies were excluded by Prolific's prescreening")
    if recruiting.seen_before is not None:
        seen = recruiting.seen_before
        said.append(f"asked at the end, {seen.yes} said they had seen items before and {seen.no} had not")
    if not said:
        return computed(BY_ID["2.5"], "No", *records)
    return computed(BY_ID["2.5"], "Partial: " + "; ".join(said), *records)


@answers("2.6")
def training(study: Study, results: StudyResults) -> Answer:
    return _practice("2.6", study, results)


@answers("2.6.1")
def training_type(study: Study, results: StudyResults) -> Answer:
    return _practice("2.6.1", study, results)


@answers("2.6.2")
def training_paid(study: Study, results: StudyResults) -> Answer:
    return _practice("2.6.2", study, results)


@answers("2.6.2.1")
def training_pay(study: Study, results: StudyResults) -> Answer:
    return _practice("2.6.2.1", study, results)


def _practice(entry_id: str, study: Study, results: StudyResults) -> Answer:
    """The practice and comprehension check before the items, as the study set them up and the
    participants went through them (`methods.training`)."""
    if results.methods.platform == "imported":
        return missing(entry_id, imported(study))
    phase = results.methods.training
    setup = (
        Record("study.practice_questions", len(study.practice_questions or [])),
        Record("study.comprehension_questions", len(study.comprehension_questions or [])),
    )
    if phase is None:
        if entry_id == "2.6":
            return computed(BY_ID[entry_id], "No: people went from the instructions to the study's items", *setup)
        return not_applicable(BY_ID[entry_id], "no training", *setup)
    pay = results.methods.pay
    began = (*setup, Record("training: began", phase.began))
    out = Record("training: screened out", phase.screened_out)
    match entry_id:
        case "2.6":
            kinds = [
                *([f"{phase.practice_questions} practice questions"] if phase.practice_questions else []),
                *(["a comprehension check"] if phase.comprehension_questions else []),
            ]
            return computed(
                BY_ID[entry_id], f"Yes: {' and '.join(kinds)} before the items; {phase.began} people began", *began
            )
        case "2.6.1":
            return computed(
                BY_ID[entry_id],
                "; ".join(_training_parts(phase)),
                *began,
                out,
                Record("study.comprehension_tries", phase.comprehension_tries),
                Record("training: practice answers", phase.practice_answered),
                Record("training: practice answers right", phase.practice_right),
            )
        case "2.6.2":
            reward = Record("study.reward_pence", pay.reward_pence)
            if not phase.screened_out:
                return computed(
                    BY_ID[entry_id], "Yes: within the study's reward, the training being part of the study", reward, out
                )
            # those screened out were asked to return the study, and a returned study earns no reward
            return computed(
                BY_ID[entry_id],
                f"Partial: within the study's reward for those who went on to the items; {_unpaid(phase.screened_out)}",
                reward,
                out,
            )
        case _:
            if phase.median_pay_pence is None:
                text = "within the study's reward; no one has finished the training yet"
            else:
                text = (
                    f"within the study's reward: a median {phase.median_minutes:.1f} minutes, "
                    f"{money(phase.median_pay_pence, pay.currency)} at the study's estimated rate"
                )
            return computed(
                BY_ID[entry_id],
                text + (f"; {_unpaid(phase.screened_out)}" if phase.screened_out else ""),
                Record("study.reward_pence", pay.reward_pence),
                Record("study.estimated_minutes", pay.estimated_minutes),
                Record("training: median minutes", phase.median_minutes),
                out,
            )


def _unpaid(screened_out: int) -> str:
    people, were = ("1 person", "was") if screened_out == 1 else (f"{screened_out} people", "were")
    return (
        f"{people} screened out by the comprehension check {were} asked to return the study, "
        "so not paid its reward for the training"
    )


def _training_parts(phase: TrainingPhase) -> list[str]:
    said = []
    if phase.practice_questions:
        said.append(
            f"{phase.practice_questions} practice questions with the right answer and an explanation after each, "
            f"not counted ({phase.practice_right} of {phase.practice_answered} practice answers right)"
        )
    if phase.comprehension_questions:
        said.append(
            f"a comprehension check of {phase.comprehension_questions} questions on the instructions, all to be "
            f"answered right within {phase.comprehension_tries} tries; {phase.screened_out} of {phase.began} "
            "were asked to return the study"
        )
    return said


def _pay_applies(entry_id: str, study: Study, results: StudyResults) -> Answer | None:
    if results.methods.platform == "imported":
        return _original_unknown(entry_id, study)
    return None


@answers("2.7")
def paid(study: Study, results: StudyResults) -> Answer:
    if results.methods.platform == "imported":
        # the import's reward is Parity's default, never the original study's
        return original(study, "2.7", "pay")
    pay = results.methods.pay
    said = f"Yes: {money(pay.reward_pence, pay.currency)}" if pay.reward_pence else "No"
    return computed(BY_ID["2.7"], said, Record("study.reward_pence", pay.reward_pence))


@answers("2.7.1")
def pay_amount(study: Study, results: StudyResults) -> Answer:
    pay = results.methods.pay
    if results.methods.platform == "imported":
        return original(study, "2.7.1", "pay")
    text = f"{money(pay.reward_pence, pay.currency)} for an estimated {pay.estimated_minutes} minutes"
    if pay.estimated_hourly_pence is not None:
        text += f" ({money(pay.estimated_hourly_pence, pay.currency)} an hour)"
    if pay.median_hourly_pence is not None and pay.median_minutes is not None:
        text += (
            f"; at the median time taken, {pay.median_minutes:.1f} minutes, "
            f"{money(pay.median_hourly_pence, pay.currency)} an hour"
        )
    return computed(
        BY_ID["2.7.1"],
        text,
        Record("study.reward_pence", pay.reward_pence),
        Record("study.estimated_minutes", pay.estimated_minutes),
        Record("median minutes to complete", pay.median_minutes),
    )


@answers("2.7.2")
def bonus(study: Study, results: StudyResults) -> Answer:
    if skip := _pay_applies("2.7.2", study, results):
        return skip
    bonus = results.methods.pay.bonus_per_correct_pence
    return computed(BY_ID["2.7.2"], "Yes" if bonus else "No", Record("bonus per correct answer (pence)", bonus))


@answers("2.7.2.1")
def bonus_amount(study: Study, results: StudyResults) -> Answer:
    pay = results.methods.pay
    if skip := _pay_applies("2.7.2.1", study, results):
        return skip
    record = Record("bonus per correct answer (pence)", pay.bonus_per_correct_pence)
    if not pay.bonus_per_correct_pence:
        return not_applicable(BY_ID["2.7.2.1"], "no bonus", record)
    return computed(BY_ID["2.7.2.1"], f"{money(pay.bonus_per_correct_pence, pay.currency)} per correct answer", record)


@answers("2.7.3")
def same_pay(study: Study, results: StudyResults) -> Answer:
    if skip := _pay_applies("2.7.3", study, results):
        return skip
    pay = results.methods.pay
    records = (
        Record("study.reward_pence", pay.reward_pence),
        Record("bonus per correct answer (pence)", pay.bonus_per_correct_pence),
    )
    if pay.bonus_per_correct_pence:
        # the bonus follows each person's correct answers: their pay differs by design
        return computed(
            BY_ID["2.7.3"],
            f"Partial: one reward of {money(pay.reward_pence, pay.currency)} for every participant, and a bonus "
            "per correct answer that differs with each person's answers",
            *records,
        )
    return computed(
        BY_ID["2.7.3"], f"Yes: one reward of {money(pay.reward_pence, pay.currency)} for every participant", *records
    )


@answers("2.7.3.1")
def unequal_pay(study: Study, results: StudyResults) -> Answer:
    if skip := _pay_applies("2.7.3.1", study, results):
        return skip
    pay = results.methods.pay
    record = Record("bonus per correct answer (pence)", pay.bonus_per_correct_pence)
    if pay.bonus_per_correct_pence:
        return computed(
            BY_ID["2.7.3.1"],
            f"by the bonus: {money(pay.bonus_per_correct_pence, pay.currency)} per correct answer on top of the reward",
            record,
        )
    return not_applicable(BY_ID["2.7.3.1"], "every participant has the same reward", record)
