"""What the researcher pages print: numbers formatted once, like the paper tables."""

from __future__ import annotations

from dataclasses import dataclass

from django.utils.translation import ngettext

from parity.stats.intervals import CEILING, CEILING_COVERAGE, CEILING_FEW
from results.computing.headlines import StudyHeadline
from results.computing.tree import ModelResults, StudyResults
from results.presenting.tables import ci, ci_method_label, constant_answer, count, num, pct, signed_pct, small_n_warning


@dataclass(frozen=True)
class Card:
    label: str
    value: str
    note: str = ""
    #: what the reader must know before trusting the value (e.g. a CI over few annotators)
    warning: str = ""


def _agreement_ci(bounds: list[float] | None, note: str) -> str:
    """An agreement statistic's CI on its own scale (κ and α are not shares), with how it was made
    and how it covered in simulation, or the reason there is none."""
    if bounds is None:
        return note
    return f"95% CI [{num(bounds[0])}, {num(bounds[1])}] · {note}"


def summary_cards(results: StudyResults) -> list[Card]:
    human, people, accuracy = results.human, results.participants, results.human.accuracy
    several = human.n_annotators > 1
    method = ci_method_label(accuracy.ci_method, short=True)
    cards = [
        Card(
            "Participants in the results",
            str(people.included),
            f"{people.excluded} excluded · {people.in_progress} in progress"
            + (f" · {people.flagged_left_out} flagged left out" if people.flagged_left_out is not None else ""),
        ),
        Card(
            "Human accuracy (mean over annotators)",
            pct(accuracy.mean),
            f"{count(human.n_annotators, 'annotator')} on {count(human.n_items_scored, 'item')}"
            + (f" · 95% CI {ci(accuracy.ci95)}, {method}" if several else " · no CI with one annotator"),
            # near the ceiling the record's sentence, which says the few-annotators warning too
            accuracy.ci_note
            or (small_n_warning(human.n_annotators, short=True) if several and accuracy.small_n_warning else ""),
        ),
        # with one annotator best and worst are the mean again: no spread to show
        Card(
            "Best / worst annotator",
            f"{pct(accuracy.best)} / {pct(accuracy.worst)}" if several else "—",
            "" if several else "one annotator",
        ),
        Card(
            "Mean pairwise Cohen's κ (per unit, averaged)",
            num(human.cohen_kappa_mean_pairwise),
            _agreement_ci(human.cohen_kappa_mean_pairwise_ci95, human.cohen_kappa_ci_note),
        ),
        Card("Fleiss' κ", num(human.fleiss_kappa), _agreement_ci(human.fleiss_kappa_ci95, human.agreement_ci_note)),
        Card(
            "Krippendorff's α (nominal)",
            num(human.krippendorff_alpha),
            _agreement_ci(human.krippendorff_alpha_ci95, human.agreement_ci_note),
        ),
        Card("Percent agreement", pct(human.percent_agreement)),
        Card(
            "Items · answers",
            str(human.n_items),
            ngettext("%(n)d answer", "%(n)d answers", human.n_answers) % {"n": human.n_answers},
        ),
    ]
    graded = results.graded
    if graded:
        # each rater grades a share of the answers: ICC per block of the same raters, weighted
        cards.append(
            Card(
                "ICC(2,k), blocks of the same raters",
                num(graded.icc2k),
                f"{graded.n_blocks} block(s) · {graded.n_items_without_icc} of {graded.n_items} "
                "answers without ICC (one rater) · " + _agreement_ci(graded.icc2k_ci95, graded.icc_ci_note),
            )
        )
    elif human.icc2k is not None:
        cards.append(Card("ICC(2,k)", num(human.icc2k), _agreement_ci(human.icc2k_ci95, human.icc_ci_note or "")))
    return cards


def disagreement_rows(model: ModelResults, limit: int = 100) -> list[list[str]]:
    return [
        [
            row.item,
            row.model_answer,
            row.majority_answer,
            pct(row.majority_share),
            "—" if row.model_correct is None else ("yes" if row.model_correct else "no"),
        ]
        for row in model.disagreements[:limit]
    ]


_LOW, _HIGH = CEILING_COVERAGE
#: what the study list's ‡ means (`parity.stats.intervals.near_ceiling`)
CEILING_MARK = (
    f"‡ marks a mean of {100 * CEILING:.0f}% or more over fewer than {CEILING_FEW} annotators, where such a CI "
    f"covered about {100 * _LOW:.0f}–{100 * _HIGH:.0f}% in simulation and may be too narrow"
)


def _ci_marks(row: StudyHeadline) -> str:
    """The study list's marks after a human CI: † below ten annotators, ‡ near the ceiling below thirty."""
    if not row.human_ci95:
        return ""
    marks = ("†" if row.human_small_n_warning else "") + ("‡" if row.human_ci_note else "")
    return f" {marks}" if marks else ""


@dataclass(frozen=True)
class HeadlineCells:
    """One study's cells in the study list, as the page writes them; a `<name>_note` is the cell's
    second, smaller line."""

    participants: str
    participants_note: str
    n_items: str
    human_accuracy: str
    human_ci95: str
    best_worst: str
    kappa: str
    alpha: str
    n_model_runs: str
    n_model_runs_note: str
    best_model: str
    best_model_note: str
    best_model_accuracy: str
    best_model_accuracy_note: str
    best_model_gap: str
    best_model_gap_note: str


def headline_cells(row: StudyHeadline) -> HeadlineCells:
    """The study list's cells; a cell's `<key>_note` is its second, smaller line (the list wraps
    there, so that every column fits a 1,366-pixel screen)."""
    people = row.participants
    compared = row.best_model and row.best_model_gap is not None and row.best_model_n_items_same
    running, queued = row.n_model_runs_running, row.n_model_runs_queued
    waiting = ", ".join(text for n, text in ((running, f"{running} running"), (queued, f"{queued} queued")) if n)
    return HeadlineCells(
        participants=str(people.included),
        participants_note=f"+{people.excluded} excluded" if people.excluded else "",
        n_items=str(row.n_items),
        human_accuracy=pct(row.human_accuracy),
        # † : fewer than ten annotators; ‡ : near the ceiling with fewer than thirty, where the CI may be
        # too narrow (the page's notes say what each means for the CI)
        human_ci95=ci(row.human_ci95) + _ci_marks(row),
        best_worst=f"{pct(row.human_best)} / {pct(row.human_worst)}",
        kappa=num(row.kappa),
        alpha=num(row.alpha),
        # runs enter the results once done; those still to come are said, not counted as none
        n_model_runs=f"{row.n_model_runs} done" if waiting else str(row.n_model_runs),
        n_model_runs_note=waiting,
        best_model=row.best_model or "—",
        # its accuracy is then the share of items where that one answer is right, no skill to compare
        best_model_note=(f"answers “{row.best_model_constant}” to every item" if row.best_model_constant else ""),
        best_model_accuracy=pct(row.best_model_accuracy) if row.best_model else "—",
        best_model_accuracy_note=f"on {count(row.best_model_n_items, 'item')}" if row.best_model else "",
        # the gap is on the items both answered, which may be fewer than either side's; none: a dash
        best_model_gap=signed_pct(row.best_model_gap) if compared else "—",
        best_model_gap_note=(f"on {count(row.best_model_n_items_same, 'item')} both answered" if compared else ""),
    )


def p_value(value: float | None) -> str:
    if value is None:
        return "—"
    return "< 0.001" if value < 0.001 else f"= {value:.3f}"


@dataclass(frozen=True)
class AmongPeopleRow:
    """One model run's line of the "among the people" table, as the page prints it."""

    label: str
    #: why the run is compared as a constant answerer ("" when it is not)
    constant: str
    ability: str
    percentile: str
    gap: str
    gap_p: str
    mcnemar: str
    kappa: str


def among_people_rows(results: StudyResults) -> list[AmongPeopleRow]:
    """Per model run: its place on the joint IRT scale, the paired tests and the human band, as the
    page prints them (a run missing from a section shows "—" there)."""
    irt = {m.run: m for m in (results.irt.models if results.irt else [])}
    paired = {row.run: row.test for row in results.paired}
    band = {row.run: row.placed for row in results.human_band}
    rows: list[AmongPeopleRow] = []
    for model in results.models:
        run = model.run
        place, test, kappa = irt.get(run), paired.get(run), band.get(run)
        rows.append(
            AmongPeopleRow(
                label=model.label,
                # a run that gave one answer to every item is compared as a constant answerer
                constant=constant_answer(model),
                ability=(
                    f"{place.ability:+.2f} [{place.ci[0]:+.2f}, {place.ci[1]:+.2f}]" + (" †" if place.ci_note else "")
                    if place
                    else "—"
                ),
                percentile=f"{place.percentile:.0f}" if place else "—",
                # no interval from answers with no spread: the reason stands where it would be
                gap=f"{signed_pct(test.gap)} {test.reason or ci(test.ci)}" if test else "—",
                gap_p=f"p {p_value(test.p)}" if test and test.p is not None else "—",
                mcnemar=(f"{test.mcnemar.b}, {test.mcnemar.c}, p {p_value(test.mcnemar.p)}" if test else "—"),
                kappa=(
                    f"{num(kappa.model_kappa)} (band {num(kappa.human_kappa.low)}–"
                    f"{num(kappa.human_kappa.high)}): {kappa.verdict}"
                    if kappa
                    else "—"
                ),
            )
        )
    return rows
