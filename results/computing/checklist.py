"""The study's answers to the human-baselines reporting checklist (`parity.reporting.checklist`),
each from the results tree (`results.computing.spine.StudyResults`) or a field the researcher
filled in, with the concrete figures.

One function per entry, so an entry whose data Parity does not record yet (prescreeners, item
sampling, practice, comprehension checks, explanations) is wired to its field where it lands.
"""

from __future__ import annotations

from collections.abc import Callable

from annotation.models import Item
from parity.reporting.checklist import (
    BY_ID,
    ENTRIES,
    Answer,
    Status,
    computed,
    entered,
    not_answered,
    not_applicable,
)
from parity.sampling import ItemSampling
from parity.sampling import describe as describe_sampling
from prolific.currency import money
from results.computing.spine import Recruiting, Spread, StudyResults
from studies.models import Preregistration, Study
from studies.screening import Screening

NOT_RECORDED = "not recorded by this study"
IMPORTED = "the human answers were imported from a published study"

Answerer = Callable[[Study, StudyResults], Answer]
_ANSWERS: dict[str, Answerer] = {}


def answers(entry_id: str) -> Callable[[Answerer], Answerer]:
    def register(function: Answerer) -> Answerer:
        _ANSWERS[entry_id] = function
        return function

    return register


def _missing(entry_id: str) -> Answer:
    return not_answered(BY_ID[entry_id], NOT_RECORDED)


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


# -- paper information -------------------------------------------------------------------------


@answers("0.1")
def paper_title(study: Study, results: StudyResults) -> Answer:
    title = results.methods.reporting.paper.get("title", "")
    return entered(BY_ID["0.1"], title) if title else _missing("0.1")


@answers("0.2")
def paper_link(study: Study, results: StudyResults) -> Answer:
    url = results.methods.reporting.paper.get("url", "")
    return entered(BY_ID["0.2"], url) if url else _missing("0.2")


@answers("0.3")
def publication_year(study: Study, results: StudyResults) -> Answer:
    return _missing("0.3")


@answers("0.4")
def paper_venue(study: Study, results: StudyResults) -> Answer:
    venue = results.methods.reporting.paper.get("venue", "")
    return entered(BY_ID["0.4"], venue) if venue else _missing("0.4")


@answers("0.5")
def eval_type(study: Study, results: StudyResults) -> Answer:
    return _missing("0.5")


@answers("0.6")
def eval_mode(study: Study, results: StudyResults) -> Answer:
    # every benchmark Parity runs shows people text and gives models text
    return computed(BY_ID["0.6"], "Text")


@answers("0.7")
def eval_language(study: Study, results: StudyResults) -> Answer:
    return computed(BY_ID["0.7"], f"participant pages in language code “{study.language}”")


@answers("0.8")
def dataset_size(study: Study, results: StudyResults) -> Answer:
    n = Item.objects.filter(benchmark=study.benchmark, is_attention_check=False).count()
    return computed(BY_ID["0.8"], f"{n} items of {results.methods.design.benchmark_title} held by Parity")


@answers("0.9")
def ai_test_set_size(study: Study, results: StudyResults) -> Answer:
    if not results.models:
        return not_applicable(BY_ID["0.9"], "no model run")
    sizes = sorted({model.n_items for model in results.models})
    return computed(BY_ID["0.9"], " / ".join(str(n) for n in sizes) + " items")


@answers("0.10")
def ai_samples_per_item(study: Study, results: StudyResults) -> Answer:
    if not results.models:
        return not_applicable(BY_ID["0.10"], "no model run")
    runs = len(results.models)
    labels = "; ".join(f"{model.model}, {model.label}" for model in results.models)
    return computed(BY_ID["0.10"], f"1 answer per item per run ({_plural(runs, 'run')}: {labels})")


# -- design --------------------------------------------------------------------------------------


@answers("1.1")
def baseliners(study: Study, results: StudyResults) -> Answer:
    entered_ = results.methods.participants
    return computed(
        BY_ID["1.1"],
        f"{results.human.n_annotators} people analysed ({entered_.entered} entered, "
        f"{entered_.completed} completed, {entered_.excluded} excluded)",
    )


@answers("1.2")
def baseline_test_set_size(study: Study, results: StudyResults) -> Answer:
    return computed(BY_ID["1.2"], f"{results.human.n_items} items")


@answers("1.2.1")
def item_sampling(study: Study, results: StudyResults) -> Answer:
    recruiting = results.methods.recruiting
    if recruiting is None:
        return _missing("1.2.1")
    items = recruiting.items
    if items.method == "all":
        return not_applicable(BY_ID["1.2.1"], f"the baseline ran on all {items.drawn} items of the split")
    sampling = ItemSampling(method=items.method, size=items.drawn, seed=items.seed)
    return computed(BY_ID["1.2.1"], describe_sampling(sampling, drawn=items.drawn, available=items.available))


@answers("1.3")
def answers_per_item(study: Study, results: StudyResults) -> Answer:
    spread = results.methods.design.participants_per_unit
    mean = results.human.n_answers / results.human.n_items if results.human.n_items else 0.0
    return computed(
        BY_ID["1.3"], f"{mean:.1f} answers per item on average (each unit planned for {_span(spread)} people)"
    )


def _span(spread: Spread) -> str:
    return str(spread.min) if spread.min == spread.max else f"{spread.min}–{spread.max}"


@answers("1.4")
def items_per_baseliner(study: Study, results: StudyResults) -> Answer:
    return computed(BY_ID["1.4"], f"{_span(results.methods.design.items_per_participant)} items")


@answers("1.5")
def human_ai_adjustment(study: Study, results: StudyResults) -> Answer:
    return _missing("1.5")


@answers("1.6")
def iterative_design(study: Study, results: StudyResults) -> Answer:
    return _missing("1.6")


@answers("1.7")
def effort(study: Study, results: StudyResults) -> Answer:
    return _missing("1.7")


@answers("1.8")
def power_analysis(study: Study, results: StudyResults) -> Answer:
    power = results.methods.reporting.power
    if not power:
        return computed(BY_ID["1.8"], "No")
    return computed(BY_ID["1.8"], f"Yes, for {power.get('people')} people of {power.get('units')} units")


@answers("1.8.1")
def detectable_effect(study: Study, results: StudyResults) -> Answer:
    power = results.methods.reporting.power
    if not power:
        return not_applicable(BY_ID["1.8.1"], "no power analysis")
    gap = power.get("detectable_gap")
    if gap is None:
        return not_answered(BY_ID["1.8.1"], str(power.get("reason", "the power analysis found no gap")))
    return computed(BY_ID["1.8.1"], f"a gap of {gap:.1%} detected with {power.get('power', 0.8):.0%} power")


@answers("1.9")
def ethics(study: Study, results: StudyResults) -> Answer:
    found = results.methods.reporting.ethics
    if found.get("body"):
        reference = f" (reference {found['reference']})" if found.get("reference") else ""
        return entered(BY_ID["1.9"], f"Yes: {found['body']}{reference}")
    if found.get("exemption"):
        return entered(BY_ID["1.9"], f"Exempted: {found['exemption']}")
    return _missing("1.9")


@answers("1.10")
def preregistration(study: Study, results: StudyResults) -> Answer:
    found = Preregistration.objects.filter(study=study).first()
    if found is None or found.frozen_at is None:
        return computed(BY_ID["1.10"], "No")
    return computed(BY_ID["1.10"], f"Yes, frozen in Parity at launch on {found.frozen_at.date().isoformat()}")


# -- recruitment -----------------------------------------------------------------------------------


@answers("2.1")
def population(study: Study, results: StudyResults) -> Answer:
    text = results.methods.reporting.population
    return entered(BY_ID["2.1"], f"Yes: {text}") if text else _missing("2.1")


@answers("2.1.1")
def population_criteria(study: Study, results: StudyResults) -> Answer:
    return _missing("2.1.1")


@answers("2.2")
def sampling_strategy(study: Study, results: StudyResults) -> Answer:
    platform = results.methods.platform
    if platform == "imported":
        return not_applicable(BY_ID["2.2"], IMPORTED)
    where = "Prolific" if platform == "prolific" else "a study link"
    return computed(BY_ID["2.2"], f"Crowdsource ({where}), first come first served")


@answers("2.3")
def recruitment_quality_control(study: Study, results: StudyResults) -> Answer:
    recruiting = _recruiting("2.3", results)
    if not isinstance(recruiting, Recruiting):
        return recruiting
    return computed(BY_ID["2.3"], "Yes" if _screened(recruiting) else "No")


@answers("2.3.1")
def recruitment_criteria(study: Study, results: StudyResults) -> Answer:
    recruiting = _recruiting("2.3.1", results)
    if not isinstance(recruiting, Recruiting):
        return recruiting
    if not _screened(recruiting):
        return not_applicable(BY_ID["2.3.1"], "nobody was prescreened or refused at recruitment")
    said = [Screening.from_json(recruiting.prescreening).describe()]
    if study.group:
        said.append(f"People who had taken part in another study of the group {study.group!r} were refused at entry.")
    return computed(BY_ID["2.3.1"], " ".join(part for part in said if part))


@answers("2.3.2")
def recruitment_exclusions(study: Study, results: StudyResults) -> Answer:
    recruiting = _recruiting("2.3.2", results)
    if not isinstance(recruiting, Recruiting):
        return recruiting
    if not _screened(recruiting):
        return not_applicable(BY_ID["2.3.2"], "nobody was prescreened or refused at recruitment")
    n = recruiting.refused_earlier_participation
    refused = f"{n} {'person' if n == 1 else 'people'}"
    unseen = " (Prolific does not say how many its prescreening kept out)" if recruiting.prescreening else ""
    return computed(BY_ID["2.3.2"], f"{refused} refused at entry for an earlier study of the group{unseen}")


def _recruiting(entry_id: str, results: StudyResults) -> Recruiting | Answer:
    """The study's recruitment record, or the answer when there is none to read."""
    if results.methods.platform == "imported":
        return not_applicable(BY_ID[entry_id], IMPORTED)
    return results.methods.recruiting or _missing(entry_id)


def _screened(recruiting: Recruiting) -> bool:
    return bool(recruiting.prescreening) or recruiting.refused_earlier_participation > 0


@answers("2.4")
def author_baseliners(study: Study, results: StudyResults) -> Answer:
    return _missing("2.4")


@answers("2.5")
def contamination(study: Study, results: StudyResults) -> Answer:
    recruiting = _recruiting("2.5", results)
    if not isinstance(recruiting, Recruiting):
        return recruiting
    said = []
    if recruiting.prescreening.get("exclude_earlier"):
        said.append("participants of the researchers' earlier studies were excluded by Prolific's prescreening")
    if recruiting.seen_before is not None:
        seen = recruiting.seen_before
        said.append(f"asked at the end, {seen['yes']} said they had seen items before and {seen['no']} had not")
    if not said:
        return computed(BY_ID["2.5"], "No")
    return computed(BY_ID["2.5"], "Partial: " + "; ".join(said))


@answers("2.6")
def training(study: Study, results: StudyResults) -> Answer:
    return _practice("2.6")


@answers("2.6.1")
def training_type(study: Study, results: StudyResults) -> Answer:
    return _practice("2.6.1")


@answers("2.6.2")
def training_paid(study: Study, results: StudyResults) -> Answer:
    return _practice("2.6.2")


@answers("2.6.2.1")
def training_pay(study: Study, results: StudyResults) -> Answer:
    return _practice("2.6.2.1")


def _practice(entry_id: str) -> Answer:
    """A practice phase is not recorded by the study yet."""
    return _missing(entry_id)


def _pay_applies(entry_id: str, results: StudyResults) -> Answer | None:
    if results.methods.platform == "imported":
        return not_applicable(BY_ID[entry_id], IMPORTED)
    return None


@answers("2.7")
def paid(study: Study, results: StudyResults) -> Answer:
    pay = results.methods.pay
    return _pay_applies("2.7", results) or computed(BY_ID["2.7"], "Yes" if pay.reward_pence else "No")


@answers("2.7.1")
def pay_amount(study: Study, results: StudyResults) -> Answer:
    pay = results.methods.pay
    if skip := _pay_applies("2.7.1", results):
        return skip
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


# -- execution -----------------------------------------------------------------------------------


@answers("3.1")
def instrument_length(study: Study, results: StudyResults) -> Answer:
    attention = results.methods.attention
    return computed(
        BY_ID["3.1"],
        f"{_span(results.methods.design.items_per_participant)} items in one sitting"
        + (f", with {attention.checks_per_participant} attention checks" if attention.checks_per_participant else ""),
    )


@answers("3.1.1")
def randomized_order(study: Study, results: StudyResults) -> Answer:
    if results.methods.platform == "imported":
        return _missing("3.1.1")
    return computed(BY_ID["3.1.1"], "Yes: each participant's order is shuffled by Parity")


def _excluded(results: StudyResults) -> str:
    people = results.methods.participants
    reasons = "; ".join(f"{reason.n} {reason.reason}" for reason in people.exclusion_reasons)
    text = f"{people.excluded} of {people.entered} excluded" + (f" ({reasons})" if reasons else "")
    left_out = results.participants.flagged_left_out
    if left_out:
        text += f"; {left_out} flagged for review left out of these results"
    return text


@answers("3.2")
def execution_quality_control(study: Study, results: StudyResults) -> Answer:
    attention = results.methods.attention
    checked = attention.checks_per_participant and attention.exclude_at
    return computed(BY_ID["3.2"], "Yes" if checked or results.methods.participants.excluded else "No")


@answers("3.2.1")
def execution_criteria(study: Study, results: StudyResults) -> Answer:
    attention = results.methods.attention
    if not attention.checks_per_participant:
        return not_applicable(BY_ID["3.2.1"], "no attention checks")
    text = (
        f"{attention.checks_per_participant} attention checks per participant, "
        f"excluded at {attention.exclude_at} failed"
    )
    if attention.answer_floor_ms:
        text += f"; answers sooner than {attention.answer_floor_ms} ms after the item was shown refused"
    # studies.flags and results.computing.integrity raise these for the researcher's review
    text += "; participants flagged for review on fast completion, fast items, straight-lining, pasting"
    return computed(BY_ID["3.2.1"], text)


@answers("3.2.2")
def execution_exclusions(study: Study, results: StudyResults) -> Answer:
    return computed(BY_ID["3.2.2"], _excluded(results))


@answers("3.3")
def same_interface(study: Study, results: StudyResults) -> Answer:
    if not results.models:
        return not_applicable(BY_ID["3.3"], "no model run")
    return computed(BY_ID["3.3"], "No: people answer on web pages, models read the benchmark's prompt")


@answers("3.3.1")
def gui_vs_api(study: Study, results: StudyResults) -> Answer:
    if not results.models:
        return not_applicable(BY_ID["3.3.1"], "no model run")
    return computed(BY_ID["3.3.1"], "Checked")


@answers("3.3.2")
def interface_adjustment(study: Study, results: StudyResults) -> Answer:
    return _missing("3.3.2")


@answers("3.4")
def same_instructions(study: Study, results: StudyResults) -> Answer:
    if not results.models:
        return not_applicable(BY_ID["3.4"], "no model run")
    settings = sorted({model.setting for model in results.methods.models})
    return computed(
        BY_ID["3.4"],
        "Partial: the same items; people read the study's instructions, models the prompt of their "
        f"setting ({'; '.join(settings)})",
    )


@answers("3.4.1")
def instruction_adjustment(study: Study, results: StudyResults) -> Answer:
    return _comprehension("3.4.1")


def _comprehension(entry_id: str) -> Answer:
    """A comprehension check is not recorded by the study yet."""
    return _missing(entry_id)


@answers("3.5")
def same_tools(study: Study, results: StudyResults) -> Answer:
    return _missing("3.5")


@answers("3.5.1")
def tools_enforced(study: Study, results: StudyResults) -> Answer:
    if "ai_tool" in (study.closing_questions or []):
        return computed(BY_ID["3.5.1"], "Partial: participants were asked afterwards whether they used an AI tool")
    return _missing("3.5.1")


@answers("3.6")
def explanations(study: Study, results: StudyResults) -> Answer:
    return _missing("3.6")


# -- analysis ------------------------------------------------------------------------------------


@answers("4.1")
def significance(study: Study, results: StudyResults) -> Answer:
    if not results.models:
        return not_applicable(BY_ID["4.1"], "no model run")
    return computed(BY_ID["4.1"], "Yes" if results.paired else "No")


@answers("4.1.1")
def significance_test(study: Study, results: StudyResults) -> Answer:
    if not results.paired:
        return not_applicable(BY_ID["4.1.1"], "no paired test")
    return computed(
        BY_ID["4.1.1"], f"{results.paired[0].test.method}; McNemar's test on the items with a human majority"
    )


@answers("4.2")
def uncertainty(study: Study, results: StudyResults) -> Answer:
    statistics = results.methods.statistics
    return computed(
        BY_ID["4.2"],
        f"Yes: {statistics.ci_level:.0%} CIs ({statistics.human_ci_method}, {statistics.n_boot} resamples)",
    )


@answers("4.2.1")
def estimate_type(study: Study, results: StudyResults) -> Answer:
    return computed(BY_ID["4.2.1"], "Point and interval estimates; each person's accuracy (distribution)")


@answers("4.3")
def same_metric(study: Study, results: StudyResults) -> Answer:
    if not results.models:
        return not_applicable(BY_ID["4.3"], "no model run")
    return computed(BY_ID["4.3"], "Yes: accuracy on the same items, by the benchmark's one answer schema")


@answers("4.4")
def same_rubric(study: Study, results: StudyResults) -> Answer:
    if not results.models:
        return not_applicable(BY_ID["4.4"], "no model run")
    return computed(BY_ID["4.4"], "Yes: the benchmark's gold answers score both")


@answers("4.5")
def same_method(study: Study, results: StudyResults) -> Answer:
    if not results.models:
        return not_applicable(BY_ID["4.5"], "no model run")
    return computed(BY_ID["4.5"], "Yes: scored automatically against the gold answer")


@answers("4.6")
def robustness(study: Study, results: StudyResults) -> Answer:
    if not results.methods.participants.excluded:
        return not_applicable(BY_ID["4.6"], "no participant was excluded")
    return _missing("4.6")


# -- documentation -------------------------------------------------------------------------------


@answers("5.1.1")
def demographics(study: Study, results: StudyResults) -> Answer:
    asked = [key for key in ("age", "gender", "first_language", "education") if key in (study.closing_questions or [])]
    if asked:
        return computed(BY_ID["5.1.1"], "Partial: participants were asked " + ", ".join(asked))
    return _missing("5.1.1")


@answers("5.1.2")
def instructions(study: Study, results: StudyResults) -> Answer:
    if not study.instructions_text.strip():
        return _missing("5.1.2")
    return computed(BY_ID["5.1.2"], "Yes: study/instructions.txt and study/consent.txt of the replication bundle")


@answers("5.1.3")
def time_to_completion(study: Study, results: StudyResults) -> Answer:
    minutes = results.methods.pay.median_minutes
    if minutes is None:
        return _missing("5.1.3")
    return computed(BY_ID["5.1.3"], f"median {minutes:.1f} minutes")


@answers("5.1.4")
def ai_tools(study: Study, results: StudyResults) -> Answer:
    return not_applicable(BY_ID["5.1.4"], "participants were given no AI tool")


@answers("5.1.5")
def completion_rate(study: Study, results: StudyResults) -> Answer:
    people = results.methods.participants
    return computed(
        BY_ID["5.1.5"],
        f"{people.entered} entered, {people.completed} completed; {people.declined} declined consent, "
        f"{people.returned} returned, {people.timed_out} timed out, {people.in_progress} in progress",
    )


@answers("5.2")
def data_available(study: Study, results: StudyResults) -> Answer:
    return computed(BY_ID["5.2"], "Yes: the replication bundle holds every answer, by pseudonym")


@answers("5.2.1")
def data_per_person(study: Study, results: StudyResults) -> Answer:
    return computed(BY_ID["5.2.1"], "Yes: humans/answers.jsonl by pseudonym")


@answers("5.2.2")
def data_withheld(study: Study, results: StudyResults) -> Answer:
    return not_applicable(BY_ID["5.2.2"], "the data are in the replication bundle")


@answers("5.3")
def materials(study: Study, results: StudyResults) -> Answer:
    return computed(BY_ID["5.3"], "Yes: items, consent, instructions and model prompts in the replication bundle")


@answers("5.4")
def analysis_code(study: Study, results: StudyResults) -> Answer:
    return computed(BY_ID["5.4"], "Yes: Parity's analysis reproduces analysis/study_results.json from the bundle")


def study_checklist(study: Study, results: StudyResults) -> list[Answer]:
    """Every entry of the checklist, answered, in the checklist's order: from Parity's records where it
    has them, else from the researcher's note on the entry (`Study.checklist_notes`), else with the
    reason it is not answered. A note never replaces a figure Parity computed or a researcher's field."""
    notes = study.checklist_notes or {}
    found = [_ANSWERS[entry.id](study, results) for entry in ENTRIES]
    return [
        entered(answer.entry, notes[answer.entry.id])
        if answer.status is not Status.ANSWERED and notes.get(answer.entry.id)
        else answer
        for answer in found
    ]
