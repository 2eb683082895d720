"""The report's methods and results paragraphs, written from the results tree alone.

Each paragraph is a list of parts: plain words, and figures taken from the results at a named path
(`figures.Figure`), so nothing in a paragraph is computed here: the numbers are the page's.
"""

from __future__ import annotations

from collections.abc import Callable

from parity.reporting.methods import MODEL_CI, gap_ci, human_ci, reliability
from parity.stats import CONFIDENCE_SEQUENCE
from parity.stats.intervals import FIXED_WIDTH
from results.computing.tree import Design, Entered, Pay, PlannedPower, Spread, StudyResults
from results.presenting.report import recruitment, training
from results.presenting.report.figures import Part, figure, present, series, traced
from results.presenting.report.materials import Materials, original_sentence
from results.presenting.wording import plural

Paragraph = list[Part]

#: the design settings the methods already state in words (the units, their size, the people per
#: unit, the attention checks and the exclusion rule)
STATED = frozenset({"units", "unit_size", "per_unit", "attention_checks", "exclude_at"})
#: what became of the people who entered, as the methods name each fate, in the order they are said
FATES: tuple[tuple[Callable[[Entered], int], str], ...] = (
    (lambda people: people.completed, "completed it"),
    (lambda people: people.screened_out, "failed the comprehension check"),
    (lambda people: people.declined, "declined consent"),
    (lambda people: people.returned, "returned it"),
    (lambda people: people.timed_out, "timed out"),
    (lambda people: people.in_progress, "still answering"),
)


class _Text:
    """Builds one paragraph: `add` words and figures, `f` a figure read from `tree`."""

    def __init__(self, results: StudyResults, materials: Materials | None = None) -> None:
        self.results = results
        #: the results read for figures (`figures.traced`): `t.f(t.tree.methods.pay.currency)`
        self.tree = traced(results)
        self.methods = results.methods
        #: the study's texts and, for an imported study, the original study as entered (None: the
        #: report is written from the results alone, and an imported study's original is not known)
        self.materials = materials
        self.parts: list[Part] = []

    def f(self, read: object, kind: str = "int") -> Part:
        """The figure read from `tree`, with its path in the results' JSON."""
        return figure(read, kind)

    def add(self, *parts: Part) -> None:
        self.parts.extend(parts)


def _recruitment(t: _Text) -> None:
    methods = t.methods
    platform, people = methods.platform, methods.participants
    if platform == "imported":
        t.add(
            "The human answers are those of a published study, imported into Parity: ",
            t.f(t.tree.methods.participants.entered),
            f" {plural(people.entered, 'annotator', 'annotators')}. ",
            # the import's records count the published answers, not who began the original study
            original_sentence(t.materials, "attrition", "the original study's attrition"),
        )
        return
    if platform == "prolific":
        t.add("Participants were recruited on Prolific and answered on Parity through the study's link")
    elif methods.panel:
        t.add(f"Participants were recruited through {methods.panel} and answered on Parity through the study's link")
    else:
        t.add("Participants answered on Parity through the study's link (no Prolific study was recorded)")
    dates = methods.dates
    if dates.first_start and dates.last_completion and dates.first_start[:10] == dates.last_completion[:10]:
        t.add(", on ", t.f(t.tree.methods.dates.first_start, kind="day"))
    elif dates.first_start and dates.last_completion:
        t.add(
            ", between ",
            t.f(t.tree.methods.dates.first_start, kind="day"),
            " and ",
            t.f(t.tree.methods.dates.last_completion, kind="day"),
        )
    t.add(". ")
    t.add(t.f(t.tree.methods.participants.entered), f" {plural(people.entered, 'person', 'people')} entered")
    fates = [(read, words) for read, words in FATES if read(people)]
    if fates:
        t.add(": ")
        t.add(*series([[t.f(read(t.tree.methods.participants)), f" {words}"] for read, words in fates]))
    t.add(". ")


def _exclusions(t: _Text) -> None:
    people = t.methods.participants
    if people.excluded:
        t.add(
            t.f(t.tree.methods.participants.excluded),
            f" {plural(people.excluded, 'was', 'were')} excluded (",
        )
        reasons = [
            [
                t.f(t.tree.methods.participants.exclusion_reasons[index].reason, kind="phrase"),
                ": ",
                t.f(t.tree.methods.participants.exclusion_reasons[index].n),
            ]
            for index in range(len(people.exclusion_reasons))
        ]
        t.add(*series(reasons), "). ")
    if t.methods.platform == "imported":
        t.add(original_sentence(t.materials, "exclusions", "the original study's exclusions"))
    t.add(
        "The analysis uses the answers of the ",
        t.f(t.tree.participants.included),
        " participants who completed the study and were not excluded. ",
    )


def _attention(t: _Text) -> None:
    attention = t.methods.attention
    if t.methods.platform == "imported":
        return
    if attention.checks_per_participant:
        t.add(
            "Each participant met ",
            t.f(t.tree.methods.attention.checks_per_participant),
            f" attention {plural(attention.checks_per_participant, 'check', 'checks')} among the items, at "
            "random positions",
        )
        if attention.exclude_at:
            t.add(
                "; a participant who failed ",
                t.f(t.tree.methods.attention.exclude_at),
                " was excluded",
            )
        t.add(". ")
    else:
        t.add("The study had no attention checks. ")
    if attention.answer_floor_ms:
        t.add(
            "An answer given less than ",
            t.f(t.tree.methods.attention.answer_floor_ms),
            " ms after its item was shown was refused as unread. ",
        )


def _pay(t: _Text) -> None:
    if t.methods.platform == "imported":
        # the reward Parity gave the import was never paid to anyone
        t.add(original_sentence(t.materials, "pay", "the original study's pay"))
        return
    pay = t.methods.pay

    def amount(read: Callable[[Pay], int | float | None]) -> list[Part]:
        # in the Prolific workspace's currency: its symbol, then the amount
        return [
            t.f(t.tree.methods.pay.currency, kind="currency"),
            t.f(read(t.tree.methods.pay), kind="minor"),
        ]

    t.add(
        "The reward was ",
        *amount(lambda pay: pay.reward_pence),
        " for an estimated ",
        t.f(t.tree.methods.pay.estimated_minutes),
        " minutes (",
        *amount(lambda pay: pay.estimated_hourly_pence),
        " an hour)",
    )
    if pay.median_minutes is not None:
        t.add(
            "; the median completion took ",
            t.f(t.tree.methods.pay.median_minutes, kind="one"),
            " minutes (",
            *amount(lambda pay: pay.median_hourly_pence),
            " an hour)",
        )
    if pay.bonus_per_correct_pence:
        t.add(", with a bonus of ", *amount(lambda pay: pay.bonus_per_correct_pence), " per right answer")
    t.add(". ")


def _design(t: _Text) -> None:
    design = t.methods.design
    t.add(
        "The study (",
        t.f(t.tree.methods.design.benchmark_title, kind="text"),
        ") had ",
        t.f(t.tree.methods.design.n_items),
        " items in ",
        t.f(t.tree.methods.design.n_units),
        f" {plural(design.n_units, 'unit', 'units')}; each participant answered the items of one unit (",
    )
    spreads: list[tuple[Callable[[Design], Spread], str, str]] = [
        (lambda design: design.items_per_participant, "items", ", "),
        (lambda design: design.participants_per_unit, "participants per unit", ""),
    ]
    for read, noun, then in spreads:
        spread = read(design)
        if spread.min == spread.max:
            t.add(t.f(read(t.tree.methods.design).min), f" {noun}")
        else:
            t.add(t.f(read(t.tree.methods.design).min), "–", t.f(read(t.tree.methods.design).max), f" {noun}")
        t.add(then)
    t.add(" planned). ")
    told = [
        index
        for index, setting in enumerate(design.settings)
        if setting.key not in STATED and setting.value not in ("", None)
    ]
    if told and t.methods.platform == "imported":
        # the settings are those Parity gave the import, not the original study's: none is stated
        t.add("The original study's other settings (such as the order its items were shown in) are not known. ")
    elif told:
        # a sentence of its own, each setting named by its label in quotes (a label is the form's,
        # not a phrase: "Items from"), a switch on or off, any other setting "set to" its value
        said: list[list[Part]] = []
        for index in told:
            label = ["“", t.f(t.tree.methods.design.settings[index].label, kind="text"), "”"]
            if isinstance(design.settings[index].value, bool):
                said.append([*label, " was ", t.f(t.tree.methods.design.settings[index].value, kind="switch")])
            else:
                said.append([*label, " was set to ", t.f(t.tree.methods.design.settings[index].value, kind="setting")])
        t.add("Of the study's other design settings, ", *series(said), ". ")


def _original_materials(t: _Text) -> None:
    """An imported study's instructions and interface as the original paper describes them: its people
    never read Parity's texts."""
    if t.methods.platform == "imported":
        t.add(original_sentence(t.materials, "materials", "the original study's instructions and interface"))


def _models(t: _Text) -> None:
    models = t.methods.models
    if not models:
        return
    t.add("The same items were answered by ")
    described = []
    for index, model in enumerate(models):
        parts: list[Part] = [t.f(t.tree.methods.models[index].model, kind="text"), " ("]
        details: list[list[Part]] = []
        if model.model_id and model.model_id != model.model:
            details.append([t.f(t.tree.methods.models[index].model_id, kind="text")])
        if model.revision:
            details.append(["revision ", t.f(t.tree.methods.models[index].revision, kind="text")])
        elif model.source != "inspect":  # an Inspect log does not say which revision its provider loaded
            details.append(["the default revision"])
        if model.dtype:
            details.append([t.f(t.tree.methods.models[index].dtype, kind="text")])
        details.append(["setting: ", t.f(t.tree.methods.models[index].setting, kind="text")])
        if model.source == "inspect":
            ran: list[Part] = ["run in Inspect ", t.f(t.tree.methods.models[index].source_version, kind="text")]
            if model.samples_file:
                ran += [
                    ", answers imported from its eval log ",
                    t.f(t.tree.methods.models[index].samples_file, kind="text"),
                ]
            details.append(ran)
        if model.source == "lm-evaluation-harness":
            details.append(
                [
                    "answers imported from lm-evaluation-harness's samples file ",
                    t.f(t.tree.methods.models[index].samples_file, kind="text"),
                ]
            )
        for number, detail in enumerate(details):
            parts.extend([*([", "] if number else []), *detail])
        parts.append(")")
        described.append(parts)
    t.add(*series(described), ". ")


def _statistics(t: _Text) -> None:
    results = t.results
    method = t.methods.statistics.human_ci_method
    t.add(
        "Human accuracy is the mean over participants of each one's accuracy, with a ",
        t.f(t.tree.methods.statistics.ci_level, kind="level"),
        f" CI ({human_ci(method)}), about people like these on these items; a model's accuracy "
        f"has a CI by {MODEL_CI} (",
        t.f(t.tree.methods.statistics.n_boot),
        " resamples, seed ",
        t.f(t.tree.methods.statistics.seed),
        "), about items like these. Agreement is the mean pairwise Cohen's κ within units, Fleiss' κ and "
        "Krippendorff's α. ",
    )
    prolific = t.methods.prolific
    if method == CONFIDENCE_SEQUENCE and prolific is not None and prolific.target_kind == "ci_width":
        # a t-interval printed at a stop chosen because it was narrow would cover less than it says;
        # the citation has no year, as a paragraph's only digits are figures
        t.add(
            "Recruitment stopped when the ",
            t.f(t.tree.methods.statistics.ci_level, kind="level"),
            " confidence sequence of human accuracy (Waudby-Smith and Ramdas), valid at any stopping time, "
            "was at most ",
            t.f(present(t.tree.methods.prolific).target_value, kind="one"),
            " points wide; the interval reported is that sequence at the stop. ",
        )
    if method == FIXED_WIDTH and prolific is not None and prolific.target_kind == "ci_width":
        t.add(
            "Recruitment stopped at the last of up to three planned looks, each of whose numbers of participants "
            "was set by the spread of the accuracies so far, never by their mean (Stein's fixed-width interval); "
            "the interval reported is the mean ± half the target of ",
            t.f(present(t.tree.methods.prolific).target_value, kind="one"),
            " points. ",
        )
    if results.paired:
        t.add(
            "A model's gap to the humans is taken on the items both answered; its CI and its test of no gap are "
            f"about people like these on items like these, from {gap_ci(t.methods.statistics.gap_ci_method)}. "
            "Each model is also tested against the majority answer of these participants with McNemar's test "
            "(χ² without continuity correction), a claim about these participants, not people in general. ",
        )
    if results.human_band:
        t.add(
            "Each model's κ with each person is set against the distribution of the person–person κs (the human band). "
        )
    irt = results.irt
    if irt:
        t.add(
            "Each model's ability is placed on the scale of the people population (its mean at zero, its SD the "
            "unit) by a ",
            t.f(present(t.tree.irt).model, kind="text"),
            " item-response model (the Rasch model by conditional maximum likelihood, the people's mean and SD as "
            "origin and unit, the CI the noncentral-t interval of a standardised mean; the two-parameter model by "
            "marginal maximum likelihood, the CI by the delta method with the items' uncertainty) over ",
            t.f(present(t.tree.irt).people),
            " people and ",
            t.f(present(t.tree.irt).items_used),
            " items (",
            t.f(present(t.tree.irt).items_dropped_all_right),
            " dropped as answered right by all, ",
            t.f(present(t.tree.irt).items_dropped_all_wrong),
            " as answered wrong by all)",
        )
        said: list[list[Part]] = [
            # a clamped estimate is said in words (`parity.reporting.methods.reliability`), never as 0.00
            [f"{name} reliability ", t.f(read, kind="num")] if value > 0 else [reliability(name, value)]
            for name, value, read in (
                ("person", irt.person_reliability, present(t.tree.irt).person_reliability),
                ("item", irt.item_reliability, present(t.tree.irt).item_reliability),
            )
            if value is not None
        ]
        if said:
            t.add("; ", *series(said, last=", "))
        t.add(". ")
        if not irt.calibrated:
            t.add(
                "The ability CIs are not calibrated at this size: ",
                t.f(present(t.tree.irt).calibration_note, kind="text"),
                ". ",
            )


def _population_and_ethics(t: _Text) -> None:
    """What the researchers entered: the population of interest, the ethics review, the paper."""
    reporting = t.results.methods.reporting
    if not reporting:
        return
    if reporting.population:
        t.add("The population of interest is ", t.f(t.tree.methods.reporting.population, kind="text"), ". ")
    ethics = reporting.ethics
    if ethics.body:
        t.add("The study was reviewed by ", t.f(t.tree.methods.reporting.ethics.body, kind="text"))
        if ethics.reference:
            t.add(" (reference ", t.f(t.tree.methods.reporting.ethics.reference, kind="text"), ")")
        t.add(". ")
    if ethics.exemption:
        t.add("It was exempt from ethics review: ", t.f(t.tree.methods.reporting.ethics.exemption, kind="text"), ". ")
    if not ethics.body and not ethics.exemption and t.results.methods.platform != "imported":
        t.add("The researchers did not state an ethics review. ")
    paper = reporting.paper
    if paper.title:
        t.add("The study is reported in “", t.f(t.tree.methods.reporting.paper.title, kind="text"), "”")
        if paper.venue:
            t.add(" (", t.f(t.tree.methods.reporting.paper.venue, kind="text"), ")")
        t.add(". ")


def _planned(results: StudyResults) -> PlannedPower:
    """The power analysis a sentence of `_power` has found recorded."""
    return present(results.methods.reporting.power)


def _power(t: _Text) -> None:
    """The design's power analysis, as recorded at launch."""
    power = t.results.methods.reporting.power
    if power is None or not power.detects:
        return
    t.add("Before launch, a power analysis for ", t.f(_planned(t.tree).people), " people")
    if (power.units or 0) > 1:
        t.add(
            " in ",
            t.f(_planned(t.tree).units),
            " units of ",
            t.f(_planned(t.tree).items_per_person),
            " items each",
        )
    else:
        t.add(" answering all ", t.f(_planned(t.tree).items_per_person), " items")
    t.add(
        " found that the test of the gap over people and items (two-sided, α ",
        t.f(_planned(t.tree).alpha, kind="num"),
        ")",
    )
    sides = [
        [t.f(read, kind="points"), f" for a model {side} the people"]
        for gap, read, side in (
            (power.detectable_above, _planned(t.tree).detectable_above, "above"),
            (power.detectable_below, _planned(t.tree).detectable_below, "below"),
        )
        if gap is not None
    ]
    t.add(" detects a gap of ", *series(sides), " with ", t.f(_planned(t.tree).power, kind="level"), " power")
    t.add(
        "; the human accuracy's CI was expected to be ",
        t.f(_planned(t.tree).human_half_width, kind="points"),
        " either side over participants (",
        t.f(_planned(t.tree).human_half_width_items, kind="points"),
        " generalising over items too). Its variance came from ",
        t.f(present(_planned(t.tree).source).label, kind="text"),
    )
    if power.source is not None and power.source.components:
        t.add(
            ": people ",
            t.f(present(present(_planned(t.tree).source).components).baseline, kind="pct"),
            " right, a person SD of ",
            t.f(present(present(_planned(t.tree).source).components).person_sd, kind="num"),
            " and an item SD of ",
            t.f(present(present(_planned(t.tree).source).components).item_sd, kind="num"),
            " on the logit scale",
        )
    t.add(". ")


def methods_paragraphs(results: StudyResults, materials: Materials | None = None) -> list[Paragraph]:
    """Participants; design and models; statistics: three paragraphs."""
    people, design, stats = _Text(results, materials), _Text(results, materials), _Text(results, materials)
    _recruitment(people)
    recruitment.prescreening(people)
    recruitment.refusals(people)
    _exclusions(people)
    _attention(people)
    _pay(people)
    _original_materials(people)
    training.training(people)
    _population_and_ethics(people)
    recruitment.seen_before(people)
    recruitment.explanations(people)
    _design(design)
    recruitment.items(design)
    _models(design)
    _statistics(stats)
    _power(stats)
    return [t.parts for t in (people, design, stats) if t.parts]


def methods_sections(results: StudyResults, materials: Materials | None = None) -> list[tuple[str, Paragraph]]:
    """The methods as short headed sections (participants, instructions and training, pay, quality
    control, design, models, analysis), each as long as a paper's appendix subsection; the same
    sentences as `methods_paragraphs`, none left out."""
    headed = [
        ("Participants", (_recruitment, recruitment.prescreening, recruitment.refusals, _population_and_ethics)),
        (
            "Instructions and training",
            (_original_materials, training.training, recruitment.seen_before, recruitment.explanations),
        ),
        ("Pay", (_pay,)),
        ("Quality control", (_exclusions, _attention)),
        ("Design and items", (_design, recruitment.items)),
        ("Models", (_models,)),
        ("Analysis", (_statistics, _power)),
    ]
    out = []
    for heading, writers in headed:
        t = _Text(results, materials)
        for write in writers:
            write(t)
        if t.parts:
            out.append((heading, t.parts))
    return out


def results_paragraph(results: StudyResults) -> Paragraph:
    """The headline numbers: humans, each model and its gap, and the tests where computed."""
    t = _Text(results)
    t.add(
        "Humans answered ",
        t.f(t.tree.human.accuracy.mean, kind="pct"),
        " right on average",
    )
    if results.human.accuracy.ci95:
        t.add(
            " (",
            t.f(t.tree.methods.statistics.ci_level, kind="level"),
            " CI ",
            t.f(present(t.tree.human.accuracy.ci95)[0], kind="pct"),
            " to ",
            t.f(present(t.tree.human.accuracy.ci95)[1], kind="pct"),
            ")",
        )
    t.add(". ")
    paired = {row.run: index for index, row in enumerate(results.paired)}
    band = {row.run: index for index, row in enumerate(results.human_band)}
    irt = {row.run: index for index, row in enumerate(results.irt.models if results.irt else [])}
    for index, model in enumerate(results.models):
        t.add(t.f(t.tree.models[index].label, kind="text"), ": ")
        if model.constant_answer:
            # its figures compare people with a constant answerer: said before them
            t.add(
                "a constant answerer, “",
                t.f(t.tree.models[index].constant_answer, kind="text"),
                "” to every item; ",
            )
        t.add(
            t.f(t.tree.models[index].accuracy, kind="pct"),
            " on its ",
            t.f(t.tree.models[index].n_items_scored),
            " items; on the ",
            t.f(t.tree.models[index].n_items_same),
            " items both answered the gap to the humans is ",
            t.f(t.tree.models[index].gap_to_humans, kind="signed_pp"),
        )
        if model.gap_ci95:
            t.add(
                " (CI ",
                t.f(present(t.tree.models[index].gap_ci95)[0], kind="signed_pp"),
                " to ",
                t.f(present(t.tree.models[index].gap_ci95)[1], kind="signed_pp"),
                ")",
            )
        if model.run in paired:
            row = paired[model.run]
            t.add(
                ", p ",
                t.f(t.tree.paired[row].test.p, kind="p_is"),
                "; against these participants' majority, McNemar p ",
                t.f(t.tree.paired[row].test.mcnemar.p, kind="p_is"),
            )
        if model.run in band:
            row = band[model.run]
            t.add(
                "; its κ with people, ",
                t.f(t.tree.human_band[row].placed.model_kappa, kind="num"),
                ", is ",
                t.f(t.tree.human_band[row].placed.verdict, kind="text"),
                " the human band",
            )
        if model.run in irt:
            row = irt[model.run]
            t.add(
                "; its ability places it at the ",
                t.f(present(t.tree.irt).models[row].percentile, kind="one"),
                "th percentile of the participants",
            )
        t.add(". ")
    return t.parts
