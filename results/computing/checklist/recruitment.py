"""The checklist's recruitment entries (2.x): who could take part, who was kept out, training and pay."""

from __future__ import annotations

from parity.reporting.checklist import BY_ID, Answer, Record, computed, entered, not_applicable
from prolific.currency import money
from results.computing.checklist.answering import IMPORTED, answers, missing, original
from results.computing.spine import Recruiting, StudyResults, TrainingPhase
from studies.models import Study
from studies.screening import Screening

# -- recruitment -----------------------------------------------------------------------------------


@answers("2.1")
def population(study: Study, results: StudyResults) -> Answer:
    text = results.methods.reporting.population
    return entered(BY_ID["2.1"], f"Yes: {text}") if text else missing("2.1")


@answers("2.1.1")
def population_criteria(study: Study, results: StudyResults) -> Answer:
    return missing("2.1.1")


@answers("2.2")
def sampling_strategy(study: Study, results: StudyResults) -> Answer:
    platform = results.methods.platform
    if platform == "imported":
        return not_applicable(BY_ID["2.2"], IMPORTED)
    if platform == "prolific":
        return computed(BY_ID["2.2"], "Crowdsource (Prolific), first come first served", Record("platform", platform))
    return computed(
        BY_ID["2.2"],
        "Through the study's link, first come first served; no Prolific study was recorded, so how people "
        "came by the link is the researchers' to say",
        Record("platform", platform),
    )


@answers("2.3")
def recruitment_quality_control(study: Study, results: StudyResults) -> Answer:
    recruiting = _recruiting("2.3", results)
    if not isinstance(recruiting, Recruiting):
        return recruiting
    return computed(BY_ID["2.3"], "Yes" if _screened(recruiting, results) else "No")


@answers("2.3.1")
def recruitment_criteria(study: Study, results: StudyResults) -> Answer:
    recruiting = _recruiting("2.3.1", results)
    if not isinstance(recruiting, Recruiting):
        return recruiting
    if not _screened(recruiting, results):
        return not_applicable(BY_ID["2.3.1"], "nobody was prescreened or refused at recruitment")
    said = [Screening.from_json(recruiting.prescreening).describe()] if _prescreened(recruiting, results) else []
    if study.group:
        said.append(f"People who had taken part in another study of the group {study.group!r} were refused at entry.")
    return computed(BY_ID["2.3.1"], " ".join(part for part in said if part))


@answers("2.3.2")
def recruitment_exclusions(study: Study, results: StudyResults) -> Answer:
    recruiting = _recruiting("2.3.2", results)
    if not isinstance(recruiting, Recruiting):
        return recruiting
    if not _screened(recruiting, results):
        return not_applicable(BY_ID["2.3.2"], "nobody was prescreened or refused at recruitment")
    n = recruiting.refused_earlier_participation
    refused = f"{n} {'person' if n == 1 else 'people'}"
    unseen = " (Prolific does not say how many its prescreening kept out)" if _prescreened(recruiting, results) else ""
    return computed(BY_ID["2.3.2"], f"{refused} refused at entry for an earlier study of the group{unseen}")


def _recruiting(entry_id: str, results: StudyResults) -> Recruiting | Answer:
    """The study's recruitment record, or the answer when there is none to read."""
    if results.methods.platform == "imported":
        return not_applicable(BY_ID[entry_id], IMPORTED)
    return results.methods.recruiting or missing(entry_id)


def _prescreened(recruiting: Recruiting, results: StudyResults) -> bool:
    """Whether Prolific's prescreening applied: filters set on a study that Prolific ran (a study
    without a Prolific study keeps its filters, but nothing applied them)."""
    return bool(recruiting.prescreening) and results.methods.platform == "prolific"


def _screened(recruiting: Recruiting, results: StudyResults) -> bool:
    return _prescreened(recruiting, results) or recruiting.refused_earlier_participation > 0


@answers("2.4")
def author_baseliners(study: Study, results: StudyResults) -> Answer:
    return missing("2.4")


@answers("2.5")
def contamination(study: Study, results: StudyResults) -> Answer:
    recruiting = _recruiting("2.5", results)
    if not isinstance(recruiting, Recruiting):
        return recruiting
    said = []
    if _prescreened(recruiting, results) and recruiting.prescreening.get("exclude_earlier"):
        said.append("participants of the researchers' earlier studies were excluded by Prolific's prescreening")
    if recruiting.seen_before is not None:
        seen = recruiting.seen_before
        said.append(f"asked at the end, {seen['yes']} said they had seen items before and {seen['no']} had not")
    if not said:
        return computed(BY_ID["2.5"], "No")
    return computed(BY_ID["2.5"], "Partial: " + "; ".join(said))


@answers("2.6")
def training(study: Study, results: StudyResults) -> Answer:
    return _practice("2.6", results)


@answers("2.6.1")
def training_type(study: Study, results: StudyResults) -> Answer:
    return _practice("2.6.1", results)


@answers("2.6.2")
def training_paid(study: Study, results: StudyResults) -> Answer:
    return _practice("2.6.2", results)


@answers("2.6.2.1")
def training_pay(study: Study, results: StudyResults) -> Answer:
    return _practice("2.6.2.1", results)


def _practice(entry_id: str, results: StudyResults) -> Answer:
    """The practice and comprehension check before the items, as the study set them up and the
    participants went through them (`methods.training`)."""
    if results.methods.platform == "imported":
        return missing(entry_id)
    phase = results.methods.training
    if phase is None:
        if entry_id == "2.6":
            return computed(BY_ID[entry_id], "No: people went from the instructions to the study's items")
        return not_applicable(BY_ID[entry_id], "no training")
    pay = results.methods.pay
    match entry_id:
        case "2.6":
            kinds = [
                *([f"{phase.practice_questions} practice questions"] if phase.practice_questions else []),
                *(["a comprehension check"] if phase.comprehension_questions else []),
            ]
            return computed(BY_ID[entry_id], f"Yes: {' and '.join(kinds)} before the items; {phase.began} people began")
        case "2.6.1":
            return computed(BY_ID[entry_id], "; ".join(_training_parts(phase)))
        case "2.6.2":
            if not phase.screened_out:
                return computed(BY_ID[entry_id], "Yes: within the study's reward, the training being part of the study")
            # those screened out were asked to return the study, and a returned study earns no reward
            return computed(
                BY_ID[entry_id],
                f"Partial: within the study's reward for those who went on to the items; {_unpaid(phase.screened_out)}",
            )
        case _:
            if phase.median_pay_pence is None:
                text = "within the study's reward; no one has finished the training yet"
            else:
                text = (
                    f"within the study's reward: a median {phase.median_minutes:.1f} minutes, "
                    f"{money(phase.median_pay_pence, pay.currency)} at the study's estimated rate"
                )
            return computed(BY_ID[entry_id], text + (f"; {_unpaid(phase.screened_out)}" if phase.screened_out else ""))


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


def _pay_applies(entry_id: str, results: StudyResults) -> Answer | None:
    if results.methods.platform == "imported":
        return not_applicable(BY_ID[entry_id], IMPORTED)
    return None


@answers("2.7")
def paid(study: Study, results: StudyResults) -> Answer:
    if results.methods.platform == "imported":
        # the import's reward is Parity's default, never the original study's
        return original(study, "2.7", "pay")
    pay = results.methods.pay
    return _pay_applies("2.7", results) or computed(BY_ID["2.7"], "Yes" if pay.reward_pence else "No")


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
    return computed(BY_ID["2.7.1"], text)


@answers("2.7.2")
def bonus(study: Study, results: StudyResults) -> Answer:
    if skip := _pay_applies("2.7.2", results):
        return skip
    return computed(BY_ID["2.7.2"], "Yes" if results.methods.pay.bonus_per_correct_pence else "No")


@answers("2.7.2.1")
def bonus_amount(study: Study, results: StudyResults) -> Answer:
    pay = results.methods.pay
    if skip := _pay_applies("2.7.2.1", results):
        return skip
    if not pay.bonus_per_correct_pence:
        return not_applicable(BY_ID["2.7.2.1"], "no bonus")
    return computed(BY_ID["2.7.2.1"], f"{money(pay.bonus_per_correct_pence, pay.currency)} per correct answer")


@answers("2.7.3")
def same_pay(study: Study, results: StudyResults) -> Answer:
    if skip := _pay_applies("2.7.3", results):
        return skip
    return computed(BY_ID["2.7.3"], "Yes: one reward for every participant of the study")


@answers("2.7.3.1")
def unequal_pay(study: Study, results: StudyResults) -> Answer:
    return not_applicable(BY_ID["2.7.3.1"], "every participant has the same reward")
