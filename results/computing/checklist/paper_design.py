"""The checklist's paper information (0.x) and baseline design (1.x) entries."""

from __future__ import annotations

from parity.reporting.checklist import (
    BY_ID,
    Answer,
    Record,
    computed,
    entered,
    not_answered,
    not_applicable,
    note_name,
)
from parity.sampling import ItemSampling
from parity.sampling import describe as describe_sampling
from parity.stats import power as stats_power
from results.computing.checklist.answering import (
    DATASET_ITEMS,
    answers,
    answers_from_records,
    imported,
    missing,
    plural,
    runs,
    span,
    with_public_address,
)
from results.computing.tree import PlannedPower, StudyResults
from results.loading.study_data import ChecklistRecords
from studies.models import Study

# -- paper information -------------------------------------------------------------------------


@answers("0.1")
def paper_title(study: Study, results: StudyResults) -> Answer:
    title = results.methods.reporting.paper.title
    record = Record("study.paper_title", title)
    return entered(BY_ID["0.1"], title, record) if title else missing("0.1", record)


@answers("0.2")
def paper_link(study: Study, results: StudyResults) -> Answer:
    url = results.methods.reporting.paper.url
    record = Record("study.paper_url", url)
    return entered(BY_ID["0.2"], url, record) if url else missing("0.2", record)


@answers("0.3")
def publication_year(study: Study, results: StudyResults) -> Answer:
    return missing("0.3")


@answers("0.4")
def paper_venue(study: Study, results: StudyResults) -> Answer:
    venue = results.methods.reporting.paper.venue
    record = Record("study.paper_venue", venue)
    return entered(BY_ID["0.4"], venue, record) if venue else missing("0.4", record)


@answers("0.5")
def eval_type(study: Study, results: StudyResults) -> Answer:
    return missing("0.5")


@answers("0.6")
def eval_mode(study: Study, results: StudyResults) -> Answer:
    # every benchmark Parity runs shows people text and gives models text
    return computed(BY_ID["0.6"], "Text", Record("study.benchmark", study.benchmark))


@answers("0.7")
def eval_language(study: Study, results: StudyResults) -> Answer:
    if study.is_imported:
        # Parity's pages, and their language, were never the original study's
        return missing("0.7", imported(study))
    return computed(
        BY_ID["0.7"], f"participant pages in language code “{study.language}”", Record("study.language", study.language)
    )


@answers_from_records("0.8")
def dataset_size(study: Study, results: StudyResults, recorded: ChecklistRecords) -> Answer:
    # the study's item set (the implicature test set), not every item Parity holds of the benchmark:
    # its dev pool, practice items and attention checks are no part of the evaluation
    n = recorded.item_set_size
    split = study.design.get("split")
    of = f"the {split} set of " if isinstance(split, str) and split else ""
    return computed(
        BY_ID["0.8"],
        f"{n} items: {of}{results.methods.design.benchmark_title}, attention checks aside",
        Record(DATASET_ITEMS, n),
        Record("study.design.split", split if isinstance(split, str) else None),
    )


@answers("0.9")
def ai_test_set_size(study: Study, results: StudyResults) -> Answer:
    if not results.models:
        return not_applicable(BY_ID["0.9"], "no model run", runs(results))
    sizes = sorted({model.n_items for model in results.models})
    return computed(
        BY_ID["0.9"],
        " / ".join(str(n) for n in sizes) + " items",
        runs(results),
        *(Record(f"model run {model.run}: items", model.n_items) for model in results.models),
    )


@answers("0.10")
def ai_samples_per_item(study: Study, results: StudyResults) -> Answer:
    if not results.models:
        return not_applicable(BY_ID["0.10"], "no model run", runs(results))
    labels = "; ".join(model.label for model in results.models)
    each = sorted({model.n_answers / model.n_items for model in results.models if model.n_items})
    per_item = "1 answer" if each == [1.0] else " / ".join(f"{n:g}" for n in each) + " answers"
    return computed(
        BY_ID["0.10"],
        f"{per_item} per item per run ({plural(len(results.models), 'run')}: {labels})",
        runs(results),
        *(Record(f"model run {model.run}: answers", model.n_answers) for model in results.models),
        *(Record(f"model run {model.run}: items", model.n_items) for model in results.models),
    )


# -- design --------------------------------------------------------------------------------------


@answers("1.1")
def baseliners(study: Study, results: StudyResults) -> Answer:
    entered_ = results.methods.participants
    if study.is_imported:
        # the import holds the people whose answers were published: who took part in the original
        # study, and who of them was excluded, is its paper's (3.2.2 and 5.1.5)
        return computed(
            BY_ID["1.1"],
            f"{results.human.n_annotators} people analysed: those whose answers the original study published; "
            "how many took part in the original study, and how many it excluded, its paper reports (see 3.2.2 and "
            "5.1.5)",
            Record("human.n_annotators", results.human.n_annotators),
            Record("study.is_imported", True),
        )
    return computed(
        BY_ID["1.1"],
        f"{_people(results.human.n_annotators)} analysed ({entered_.entered} entered, "
        f"{entered_.completed} completed, {entered_.excluded} excluded)",
        Record("human.n_annotators", results.human.n_annotators),
        Record("participants.entered", entered_.entered),
        Record("participants.completed", entered_.completed),
        Record("participants.excluded", entered_.excluded),
    )


@answers("1.2")
def baseline_test_set_size(study: Study, results: StudyResults) -> Answer:
    n_items = results.human.n_items
    return computed(BY_ID["1.2"], plural(n_items, "item"), Record("human.n_items", n_items))


@answers("1.2.1")
def item_sampling(study: Study, results: StudyResults) -> Answer:
    recruiting = results.methods.recruiting
    if recruiting is None:
        return missing("1.2.1")
    items = recruiting.items
    records = (
        Record("study.item_sampling", items.method),
        Record("items in the study's units", items.drawn),
        Record("study.sample_seed", items.seed),
    )
    if items.method == "all":
        return not_applicable(BY_ID["1.2.1"], f"the baseline ran on all {items.drawn} items of the split", *records)
    sampling = ItemSampling(method=items.method, size=items.drawn, seed=items.seed)
    return computed(
        BY_ID["1.2.1"],
        describe_sampling(sampling, drawn=items.drawn, available=items.available),
        *records,
        Record("study.sample_pool", items.available),
    )


@answers("1.3")
def answers_per_item(study: Study, results: StudyResults) -> Answer:
    spread = results.methods.design.participants_per_unit
    mean = results.human.n_answers / results.human.n_items if results.human.n_items else 0.0
    # an import's units are the published data's subsets of items, planned by nobody here
    planned = "of the published data" if study.is_imported else "planned"
    return computed(
        BY_ID["1.3"],
        f"{mean:.1f} answers per item on average (each unit {planned} for {span(spread)} people)",
        Record("human.n_answers", results.human.n_answers),
        Record("human.n_items", results.human.n_items),
        Record("unit capacity, fewest", spread.min),
        Record("unit capacity, most", spread.max),
    )


@answers("1.4")
def items_per_baseliner(study: Study, results: StudyResults) -> Answer:
    spread = results.methods.design.items_per_participant
    return computed(
        BY_ID["1.4"],
        f"{span(spread)} items",
        Record("items per unit, fewest", spread.min),
        Record("items per unit, most", spread.max),
    )


@answers("1.5")
def human_ai_adjustment(study: Study, results: StudyResults) -> Answer:
    return missing("1.5")


@answers("1.6")
def iterative_design(study: Study, results: StudyResults) -> Answer:
    return missing("1.6")


@answers("1.7")
def effort(study: Study, results: StudyResults) -> Answer:
    return missing("1.7")


@answers("1.8")
def power_analysis(study: Study, results: StudyResults) -> Answer:
    power = results.methods.reporting.power
    if not power and study.is_imported:
        # whether the original study ran one is its paper's to say
        return missing("1.8", imported(study), Record("power", None))
    if not power:
        return computed(BY_ID["1.8"], "No: no power analysis was run before launch", Record("power", None))
    if power.people is None or power.units is None or power.items_per_person is None:
        return computed(
            BY_ID["1.8"],
            "Partial: a power analysis was asked for but could not be computed: " + str(power.reason or ""),
            Record("power.reason", str(power.reason or "")),
        )
    return computed(
        BY_ID["1.8"],
        f"Yes: before launch, for {power.people} people {_layout(power)}",
        Record("power.people", power.people),
        Record("power.units", power.units),
        Record("power.items_per_person", power.items_per_person),
    )


@answers("1.8.1")
def detectable_effect(study: Study, results: StudyResults) -> Answer:
    power = results.methods.reporting.power
    if not power and study.is_imported:
        return missing("1.8.1", imported(study), Record("power", None))
    if not power:
        return not_applicable(BY_ID["1.8.1"], "no power analysis", Record("power", None))
    if not power.detects:
        return not_answered(
            BY_ID["1.8.1"],
            str(power.reason if power.reason is not None else "the power analysis found no gap"),
            Record("power.detectable_above", None),
            Record("power.detectable_below", None),
        )
    analysed = results.human.n_annotators
    records = (
        Record("power.people", power.people),
        Record("power.alpha", power.alpha),
        Record("power.power", power.power),
        Record("power.detectable_above", power.detectable_above),
        Record("power.detectable_below", power.detectable_below),
        Record("human.n_annotators", analysed),
    )
    # the test of the gap is two-sided (parity.stats.power); each direction has its own detectable gap
    said = (
        f"With {power.people} people planned ({_layout(power)}), the two-sided test of the gap at α "
        f"{power.alpha:g} detects with {power.power:.0%} power {_sides(power.detectable_above, power.detectable_below)}"
    )
    if analysed != power.people:
        said += f"; {analysed} people were analysed, not {power.people}"
        at = _at_analysed(power, analysed, results.methods.design.items_per_participant.max)
        if at is not None:
            said += f": at {analysed} the test detects {_sides(at.detectable_above, at.detectable_below)}"
    return computed(BY_ID["1.8.1"], said, *records)


def _layout(power: PlannedPower) -> str:
    if (power.units or 0) > 1:
        return f"in {power.units} units of {power.items_per_person} items each"
    return f"each answering all {power.items_per_person} items"


def _sides(above: float | None, below: float | None) -> str:
    sides = [
        f"{'no gap' if gap is None else f'a gap of {100 * abs(gap):.1f} points'} for a model {side} the people"
        for gap, side in ((above, "above"), (below, "below"))
    ]
    return " and ".join(sides)


def _at_analysed(power: PlannedPower, analysed: int, items: int) -> stats_power.PowerAnalysis | None:
    """The planned analysis again at the number of people analysed (its variance components, its α
    and power, the units' items as run), or None where it cannot be computed."""
    parts = power.source.components if power.source is not None else None
    if not parts or analysed < 2:
        return None
    try:
        return stats_power.power_analysis(
            people=analysed,
            items_per_person=items or int(power.items_per_person or 0),
            units=max(1, int(power.units or 0)),
            components=stats_power.VarianceComponents(
                baseline=float(parts.baseline), person_sd=float(parts.person_sd), item_sd=float(parts.item_sd)
            ),
            power=float(power.power or 0),
            alpha=float(power.alpha or 0),
        )
    except (ValueError, ArithmeticError):
        return None


@answers("1.9")
def ethics(study: Study, results: StudyResults) -> Answer:
    found = results.methods.reporting.ethics
    records = (
        Record("study.ethics_body", found.body),
        Record("study.ethics_reference", found.reference),
        Record("study.ethics_exemption", found.exemption),
    )
    if found.body:
        reference = f" (reference {found.reference})" if found.reference else ""
        return entered(BY_ID["1.9"], f"Yes: {found.body}{reference}", *records)
    if found.exemption:
        return entered(BY_ID["1.9"], f"Yes: exempted: {found.exemption}", *records)
    return missing("1.9", *records)


@answers_from_records("1.10")
def preregistration(study: Study, results: StudyResults, recorded: ChecklistRecords) -> Answer:
    # a plan frozen in Parity is the researchers' own record, not a public registration (OSF, AsPredicted):
    # only the researchers can say where one is, as this entry's note
    at = recorded.preregistration_frozen_at
    frozen = at.date().isoformat() if at is not None else None
    sha256 = recorded.preregistration_sha256 if frozen else ""
    records = (Record("preregistration.frozen_at", frozen), Record("preregistration.sha256", sha256 or None))
    if frozen is None:
        note = (study.checklist_notes or {}).get("1.10", "")
        if note:
            return entered(BY_ID["1.10"], note, *records, Record(note_name("1.10"), note))
        if study.is_imported:
            # a plan Parity never froze says nothing of the original study's registration
            return missing("1.10", *records, imported(study))
        return computed(
            BY_ID["1.10"],
            "No: no plan was frozen in Parity before launch, and no public registration was entered",
            *records,
            Record(note_name("1.10"), None),
        )
    fact = f"the plan was frozen in Parity at launch on {frozen} (SHA-256 {sha256[:12]}…)"
    return with_public_address(
        study,
        "1.10",
        fact,
        "that is not a public registration, and none was entered (its address is this entry's note)",
        *records,
    )


def _people(n: int) -> str:
    return "1 person" if n == 1 else f"{n} people"
