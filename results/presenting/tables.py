"""The paper tables of a study, built from its results tree (`results.computing.tree.StudyResults`) and
written as HTML, Markdown or LaTeX.

1. Humans per unit, as Ruis et al.'s Table 7: each annotator's accuracy, the unit's mean, best,
   worst and mean pairwise Cohen's kappa, then the summary rows over units, each named for what it
   is (the mean over units, the std across units, the mean within-unit std).
2. Humans and models on the items both answered: both accuracies on those items, the gap (their
   difference) with its paired-bootstrap CI, and Cohen's kappa against the human majority.
3. Each on all the items it answered, labelled as such: the humans' mean over annotators and each
   model's accuracy, with their CIs.
4. The benchmark's breakdowns where it has them (per category; per template for model settings), and
   the benchmark's own tables, which its definition draws (`Benchmark.paper_tables`).

Every row states the items it is computed on, a spread is shown only where there is one (two
values or more), and a table's notes name its aggregates.
"""

from __future__ import annotations

from collections.abc import Sequence

from parity import benchmarks
from parity.benchmarks.tables import Table, num, pct
from parity.reporting.methods import gap_ci
from parity.stats import BOOTSTRAP, CI_METHOD_LABELS, CONFIDENCE_SEQUENCE, SMALL_N, T_INTERVAL
from parity.stats.intervals import CEILING, CEILING_COVERAGE, CEILING_DOCS, CEILING_FEW, FIXED_WIDTH
from results.computing.tree import CategoryHumans, ModelResults, StudyResults, UnitResults
from results.presenting import own_sections
from results.presenting.closing_table import closing_table
from results.presenting.gold_errors_table import gold_errors_table
from results.presenting.robustness_table import robustness_table


def ci(bounds: Sequence[float | None] | None) -> str:
    if not bounds or bounds[0] is None or bounds[1] is None:
        return "—"
    return f"[{100 * bounds[0]:.1f}, {100 * bounds[1]:.1f}]"


def signed_pct(value: float | None) -> str:
    return "—" if value is None else f"{100 * value:+.1f} pp"


def spread(value: float | None) -> str:
    """A std of fractions, in percentage points; "—" where there is no spread (one value)."""
    return "—" if value is None else f"{100 * value:.1f} pp"


def count(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def ci_method_label(method: str | None, *, short: bool = False) -> str:
    """What a human CI's method is called (parity.stats.intervals), for notes and pages (`short`: on a card)."""
    if short:
        return {
            T_INTERVAL: "t-interval",
            BOOTSTRAP: "bootstrap",
            CONFIDENCE_SEQUENCE: "confidence sequence",
            FIXED_WIDTH: "fixed width, planned looks",
        }.get(method or "", method or "—")
    return CI_METHOD_LABELS.get(method or "", method or "—")


def small_n_warning(n: int, *, short: bool = False) -> str:
    """The warning printed beside a CI over fewer than `SMALL_N` annotators (`short`: on a card)."""
    if short:
        return f"Only {count(n, 'annotator')}, fewer than {SMALL_N}: a wide, rough CI."
    return (
        f"Fewer than {SMALL_N} annotators ({n}): the CI of their mean accuracy is wide, and it assumes their "
        "accuracies are roughly normal, which so few cannot show. Read it as a rough range."
    )


def unit_table(results: StudyResults) -> Table:
    units = [unit for unit in results.units if unit.n_annotators]
    width = max((len(unit.annotators) for unit in units), default=0)
    columns = [
        "Unit",
        *[f"Annotator {n}" for n in range(1, width + 1)],
        "Mean",
        "Mean 95% CI",
        "Best",
        "Worst",
        "IAA (κ)",
    ]
    rows = []
    for unit in units:
        accuracies = [pct(a.accuracy) for a in unit.annotators]
        rows.append(
            [
                unit.unit,
                *accuracies,
                *[""] * (width - len(accuracies)),
                pct(unit.accuracy_mean),
                ci(unit.accuracy_ci95),
                pct(unit.accuracy_best),
                pct(unit.accuracy_worst),
                num(unit.cohen_kappa_mean_pairwise),
            ]
        )
    human = results.human
    across = human.accuracy_across_units
    summary = len(rows)
    blanks = ["—"] * width
    rows.append(
        [
            "Total: mean over units",
            *blanks,
            pct(across.mean),
            "",
            pct(across.best),
            pct(across.worst),
            num(human.cohen_kappa_mean_pairwise),
        ]
    )
    rows.append(
        [
            "Std across units",
            *blanks,
            spread(across.mean_std),
            "",
            spread(across.best_std),
            spread(across.worst_std),
            num(human.cohen_kappa_std_across_units),
        ]
    )
    rows.append(["Mean within-unit std", *blanks, spread(across.mean_within_unit_std), "", "", "", ""])
    notes = [
        _total_note(results),
        "Std across units: the population std, over units, of the unit means, bests, worsts and κs. Mean "
        "within-unit std: each unit's population std over its annotators, averaged over units. Ruis et al.'s "
        "Std row prints the latter under Mean and the former under Best, Worst and IAA.",
        f"Mean 95% CI: {_unit_ci_method(units)} of the unit's annotators' accuracies (not in Ruis et al.'s table).",
    ]
    few = [unit for unit in units if unit.small_n_warning]
    if few:
        notes.append(
            f"Units with fewer than {SMALL_N} annotators: {len(few)} of {len(units)} "
            f"({min(unit.n_annotators for unit in few)} annotators at the fewest). Their CIs are wide and assume "
            "the annotators' accuracies are roughly normal, which so few cannot show: read them as rough ranges."
        )
    notes.extend(_unit_ceiling_note(units))
    return Table(
        "units",
        "Human accuracy per unit (cf. Ruis et al., Table 7)",
        columns,
        rows,
        summary_from=summary,
        notes=tuple(notes),
    )


def _unit_ceiling_note(units: list[UnitResults]) -> list[str]:
    """The units whose own t-interval sits near the ceiling over fewer than `CEILING_FEW` annotators
    (each with its record's `accuracy_ci_note`), named with their numbers, and why their CIs may be
    too narrow; none where no unit is."""
    near = [unit for unit in units if unit.accuracy_ci_note and unit.accuracy_mean is not None]
    if not near:
        return []
    low, high = CEILING_COVERAGE
    named = "; ".join(f"{unit.unit} ({unit.n_annotators} annotators, {pct(unit.accuracy_mean)})" for unit in near)
    few = any(unit.small_n_warning for unit in near)
    wide = f", even where fewer than {SMALL_N} annotators make them wide" if few else ""
    return [
        f"Units near the ceiling (mean accuracy {100 * CEILING:.0f}% or more) with fewer than {CEILING_FEW} "
        f"annotators, {len(near)} of {len(units)}: {named}. Their annotators' accuracies are skewed there, and in "
        f"simulation a t-interval over so few people this close to 100% covered about {100 * low:.0f}–"
        f"{100 * high:.0f}% of the time rather than 95%: their CIs may be too narrow{wide} (see {CEILING_DOCS})."
    ]


def _unit_ci_method(units: list[UnitResults]) -> str:
    methods = sorted({unit.accuracy_ci_method for unit in units if unit.accuracy_ci_method})
    return " / ".join(ci_method_label(method) for method in methods) or ci_method_label(None)


def _total_note(results: StudyResults) -> str:
    """How the Total row's mean stands to the headline human accuracy (the mean over annotators)."""
    across, headline = results.human.accuracy_across_units, results.human.accuracy.mean
    fewest, most = across.fewest_participants, across.most_participants
    units = count(across.n_units, "unit")
    said = (
        f"Total: each unit's mean, best, worst and mean pairwise κ averaged over the {units}, "
        "every unit weighing the same. The headline human accuracy, "
        f"{pct(headline)}, is the mean over annotators, every annotator weighing the same"
    )
    if fewest == most:
        return f"{said}; every unit has {count(most, 'annotator')}, so the two are the same."
    if pct(across.mean) == pct(headline):
        return f"{said}; units have {fewest} to {most} annotators, so the two could differ (here they do not)."
    return (
        f"{said}; units have {fewest} to {most} annotators, so the two differ: "
        f"{pct(across.mean)} over units, {pct(headline)} over annotators."
    )


def comparison_table(results: StudyResults) -> Table | None:
    """Each model beside the humans on the items both answered: the gap is the difference of the two
    accuracies printed beside it."""
    if not results.models:
        return None
    columns = [
        "",
        "Setting",
        "Items both answered",
        "Humans",
        "Model",
        "Gap (model − humans)",
        "Gap 95% CI",
        "κ vs human majority (items)",
    ]
    rows = [
        [
            _model_cell(model),
            model.setting_key,
            str(model.n_items_same),
            pct(model.human_accuracy_same_items),
            pct(model.accuracy_same_items),
            signed_pct(model.gap_to_humans),
            ci(model.gap_ci95),
            f"{num(model.kappa_vs_human_majority)} ({model.n_items_with_majority})",
        ]
        for model in results.models
    ]
    return Table(
        "comparison",
        "Humans and models on the same items (the items both answered)",
        columns,
        rows,
        notes=(
            "Every figure of a row is on the items both answered: those with a right answer that the model and at "
            "least one included annotator answered. Humans: the mean over these items of the share of annotators "
            "right on each. Model: its share right on them (an item answered in several variants counts with its "
            "mean over them). The gap is Model minus Humans; its CI is about people like these on items like these, "
            f"from {gap_ci(results.methods.statistics.gap_ci_method)} (as the methods say).",
            "κ vs human majority: Cohen's kappa between the model's answers and the human majority answer, on the "
            "items (counted in brackets) with a strict majority; ties are left out.",
            *constant_answer_notes(results),
        ),
    )


#: marks a model that gave one answer to every item, explained under the table (`constant_answer_notes`)
CONSTANT_MARK = "‡"


def _model_cell(model: ModelResults) -> str:
    return f"{model.model} {CONSTANT_MARK}" if model.constant_answer is not None else model.model


def constant_answer(model: ModelResults) -> str:
    """What a model that gave one answer to every item is compared as ("" for one that varied)."""
    if model.constant_answer is None:
        return ""
    return (
        f"{model.label} gave “{model.constant_answer}” to every item it answered: it is a constant answerer, "
        f"whose accuracy is the share of the items where “{model.constant_answer}” is right and whose κ with "
        "the human majority is 0 by construction"
    )


def constant_answer_notes(results: StudyResults) -> list[str]:
    return [f"{CONSTANT_MARK} {constant_answer(model)}." for model in results.models if model.constant_answer]


def accuracy_table(results: StudyResults) -> Table:
    """The humans and each model on all the items each answered: labelled as such, as the items may
    differ from one row to the next."""
    human, models = results.human, results.models
    same_everywhere = all(model.n_items_same == model.n_items_scored == human.n_items_scored for model in models)
    columns = ["", "Setting", "Items (all it answered)", "Accuracy on all its items", "95% CI"]
    rows = [
        [
            f"Humans: mean over {count(human.n_annotators, 'annotator')}",
            "—",
            str(human.n_items_scored),
            pct(human.accuracy.mean),
            ci(human.accuracy.ci95),
        ]
    ]
    for model in models:
        rows.append(
            [
                _model_cell(model),
                model.setting_key,
                str(model.n_items_scored),
                pct(model.accuracy),
                ci(model.accuracy_ci95),
            ]
        )
    if any(model.accuracy_averaged_likelihood is not None for model in models):
        # MiQA: accuracy is over both option orders; the averaged-likelihood decision beside it
        columns.append("Accuracy, orders' likelihoods averaged")
        rows[0].append("—")
        for row, model in zip(rows[1:], models):
            row.append(pct(model.accuracy_averaged_likelihood))
    if not models:
        title = "Human accuracy on the items they answered"
    elif same_everywhere:
        title = "Accuracy on all the items each answered (here the same items for all)"
    else:
        title = "Accuracy on all the items each answered (different items: compare on the same items above)"
    one = " (no CI with one annotator)" if human.n_annotators == 1 else ""
    notes = [
        f"Humans: the mean over annotators of each one's accuracy on the items they answered; its CI is "
        f"{ci_method_label(human.accuracy.ci_method)}{one}."
    ]
    if human.accuracy.ci_note:
        # near the ceiling: the record's sentence, which says the few-annotators warning too where it holds
        notes.append(human.accuracy.ci_note)
    elif human.accuracy.small_n_warning:
        notes.append(small_n_warning(human.n_annotators))
    if models:
        notes.append("A model: its share right on all the items it answered; its CI resamples items.")
        notes.extend(constant_answer_notes(results))
    return Table("accuracy", title, columns, rows, notes=tuple(notes))


def _with_n(value: float | None, n: int) -> str:
    return f"{pct(value)} ({n})"


#: a category with fewer items than this gets no human CI. The CI is over people, each person's
#: accuracy on the category's few items: with k items it takes only k + 1 values (0, ½ or 1 for two),
#: the interval holds those k items fixed, and it collapses to a point where all were right ([100.0,
#: 100.0] from 2 items) or spans most of the scale (from 1 item). Five items is where one item moves a
#: person's share by at most 20 points, the least at which a range over people says something.
FEW_ITEMS = 5


def category_ci(human: CategoryHumans) -> str:
    """A category's human CI, or why none is given (fewer than `FEW_ITEMS` items)."""
    if human.n_items < FEW_ITEMS:
        return f"none: {count(human.n_items, 'item')}"
    return ci(human.ci95)


def category_table(results: StudyResults) -> Table | None:
    """Per category, each figure with its number of items: the humans on theirs, each model on the
    items both answered and, where the model answered others too, on all of its own."""
    section = results.breakdowns.by_category
    if not section or not section.rows:
        return None
    labels = [m.label for m in section.rows[0].models]
    title = (section.field or "category").replace("_", " ")
    beyond = [
        any(row.models[index].n_items != row.models[index].n_items_same for row in section.rows)
        for index in range(len(labels))
    ]
    columns = [
        title.capitalize(),
        "Humans (n items)",
        "Humans 95% CI",
        *[f"{label}: items both answered (n)" for label in labels],
        *[f"{label}: all its items (n)" for label, more in zip(labels, beyond) if more],
    ]
    rows = [
        [
            row.category or "—",
            _with_n(row.human.mean, row.human.n_items),
            category_ci(row.human),
            *[_with_n(m.accuracy_same_items, m.n_items_same) for m in row.models],
            *[_with_n(m.accuracy, m.n_items) for m, more in zip(row.models, beyond) if more],
        ]
        for row in section.rows
    ]
    method = ci_method_label(results.human.accuracy.ci_method)
    return Table(
        "by_category",
        f"Accuracy per {title}, with the items each figure is on",
        columns,
        rows,
        notes=(
            "(n): the items a figure is computed on. Humans: the mean over annotators of each one's accuracy on "
            f"the category's items they answered; its CI is {method} "
            f"(wide and rough in a category with fewer than {SMALL_N} annotators). No CI is given for a category of "
            f"fewer than {FEW_ITEMS} items: each person's accuracy there takes only a few values, and the interval "
            "over people would be a point or most of the scale. A model: its share right on the "
            "items both answered and, where it answered others, on all of its own (a different set of items from "
            "the humans').",
        ),
    )


def _mean_std(mean: float | None, std: float | None, templates: Sequence[int]) -> str:
    """The mean ± std over the group's templates; the mean alone, naming its one template, where a
    single template was run (no spread to show)."""
    if mean is None:
        return "—"
    if std is None:
        return f"{pct(mean)} (T{templates[0]} only)" if len(templates) == 1 else pct(mean)
    return f"{pct(mean)} ± {num(100 * std, 1)}"


def template_table(results: StudyResults) -> Table | None:
    groups = own_sections.by_template(results)
    if not groups:
        return None
    templates = sorted({int(t) for group in groups for t in group.breakdown.per_template})
    columns = [
        "Model",
        "Setting",
        *[f"T{t}" for t in templates],
        "Mean ± std",
        "Structured ± std",
        "Natural ± std",
        "T7–9 ± std",
    ]
    rows = [
        [
            group.model,
            group.setting_key,
            *[pct(breakdown.per_template.get(t)) for t in templates],
            _mean_std(breakdown.mean, breakdown.std, breakdown.templates),
            _mean_std(breakdown.structured_mean, breakdown.structured_std, breakdown.structured_templates),
            _mean_std(breakdown.natural_mean, breakdown.natural_std, breakdown.natural_templates),
            _mean_std(breakdown.extra_mean, breakdown.extra_std, breakdown.extra_templates),
        ]
        for group in groups
        for breakdown in [group.breakdown]
    ]
    return Table(
        "by_template",
        "Model accuracy per prompt template: mean ± population std over templates 1–6 "
        "(structured: 1, 3, 4; natural: 2, 5, 6), templates 7–9 apart; a contrastive setting's mean is "
        "over its own templates",
        columns,
        rows,
        notes=(
            "Each ± is the population std over the templates of its group that were run, in percentage points; "
            "a group with one template run shows its accuracy alone.",
        ),
    )


def position_table(results: StudyResults) -> Table | None:
    section = own_sections.by_position(results)
    if not section:
        return None
    named = [
        ("Humans", section.humans.overall),
        *[(m.label, m.curves.overall) for m in section.models],
        ("Oracle", section.oracle.overall),
    ]
    curves = [(name, curve) for name, curve in named if curve]
    if not curves:
        return None
    by_position = {name: {p.position: p for p in curve.points} for name, curve in curves}
    positions = sorted({position for points in by_position.values() for position in points})
    # each curve is over its own episodes (the humans' may be a few of the model's): say how many
    episodes = {name: max((p.n_episodes for p in curve.points), default=0) for name, curve in curves}
    columns = ["Position", *[f"{name} ({count(episodes[name], 'episode')})" for name, _ in curves], "Humans 95% CI"]
    rows = []
    for position in positions:
        cells = [pct(point.accuracy if (point := by_position[name].get(position)) else None) for name, _ in curves]
        human = by_position.get("Humans", {}).get(position)
        rows.append([str(position), *cells, ci([human.ci_low, human.ci_high]) if human else "—"])
    return Table(
        "by_position",
        "Accuracy by position in the episode (all salient features and formats)",
        columns,
        rows,
        notes=(
            "Each column is over the episodes it names: for humans one episode is one participant's run "
            "through it. The humans' CI resamples their episodes.",
        ),
    )


def wording_table(results: StudyResults) -> Table | None:
    """Comsa et al.'s Table 3: accuracy (over both option orders) per direction and k."""
    groups = own_sections.by_wording(results)
    if not groups:
        return None
    shots = ("0", "1", "5")
    columns = [
        "Model",
        "Prompt",
        *[f"implies, {k}-shot" for k in shots],
        *[f"implied-by, {k}-shot" for k in shots],
        "0-shot by wording",
    ]
    rows = []
    for group in groups:
        choice = ", ".join(f"{wording}: {pct(score)}" for wording, score in group.zero_shot.items()) or "—"
        for row in group.rows:
            cells = [
                pct(accuracy.directions.get(direction) if (accuracy := row.by_k[k]) else None)
                for direction in ("implies", "implied-by")
                for k in shots
            ]
            rows.append([group.model, row.prompt, *cells, choice if row.wording == group.best_wording else ""])
    return Table(
        "by_wording",
        "Accuracy per direction and shots, best 0-shot wording and baselines (cf. Comsa et al., Table 3)",
        columns,
        rows,
    )


def generative_table(results: StudyResults) -> Table | None:
    """MiQA's generative task (Table 3's last row): each model's answers graded by the raters."""
    graded = results.graded
    if not graded or not graded.generative_scores:
        return None
    rows = [
        [
            row.model or "—",
            str(row.n_answers),
            pct(row.score),
            num(graded.icc2k),
            str(graded.n_items_without_icc),
        ]
        for row in graded.generative_scores
    ]
    return Table(
        "generative",
        "Generative score (correct 1, ambiguous 0.5, wrong 0; mean over raters) and " + graded.icc_form,
        ["Model", "Answers", "Generative score", "ICC(2,k)", "Answers without ICC"],
        rows,
    )


def kind_table(results: StudyResults) -> Table | None:
    """A researcher's own items per kind: accuracy only where items have a right answer, the
    raters' agreement for ratings, the models' length-normalised accuracy and metric score."""
    rows_in = own_sections.by_kind(results)
    if not rows_in:
        return None
    labels = [m.label for m in rows_in[0].models]
    columns = [
        "Kind",
        "n items",
        "Human answers",
        "Humans",
        "Humans 95% CI",
        "Raters' α (ordinal)",
        *[heading for label in labels for heading in (label, f"{label} acc_norm", f"{label} score")],
    ]
    rows = [
        [
            row.kind.replace("_", " "),
            str(row.n_items),
            str(row.human.n_answers),
            pct(row.human.accuracy) if row.has_gold else "no gold",
            ci(row.human.ci95),
            num(row.human.agreement.krippendorff_alpha_ordinal if row.human.agreement else None),
            *[
                cell
                for m in row.models
                for cell in (
                    pct(m.accuracy) if row.has_gold else "no gold",
                    pct(m.accuracy_norm),
                    num(m.mean_score),
                )
            ],
        ]
        for row in rows_in
    ]
    return Table(
        "by_kind",
        "Per kind of item (ratings and free texts have no right answer)",
        columns,
        rows,
        notes=(f"Humans 95% CI: {ci_method_label(results.human.accuracy.ci_method)}.",),
    )


def benchmark_tables(results: StudyResults) -> list[Table]:
    """The benchmark's own tables, drawn by its definition from its sections of the results (none for
    results that name no registered benchmark)."""
    definition = benchmarks.REGISTRY.get(results.benchmark or "")
    return definition.paper_tables(results.breakdowns.sections) if definition is not None else []


def paper_tables(results: StudyResults) -> list[Table]:
    # a unit table says something where units have several annotators (not AmbiBench's one per episode)
    several = any(unit.n_annotators > 1 for unit in results.units)
    tables = [
        unit_table(results) if several else None,
        comparison_table(results),
        accuracy_table(results),
        category_table(results),
        template_table(results),
        position_table(results),
        *benchmark_tables(results),
        wording_table(results),
        generative_table(results),
        kind_table(results),
        closing_table(results),
        robustness_table(results),
        gold_errors_table(results),
    ]
    return [table for table in tables if table is not None]
