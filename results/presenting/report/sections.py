"""The report's tables beyond the paper tables: the paired tests, the human band, the joint
item-response model and the items where models and people differ most; each only where the results
carry its section (`paired`, `human_band`, `irt`), and the placement plot's points."""

from __future__ import annotations

from dataclasses import dataclass

from parity.stats.paired import McNemar
from results.computing.tree import StudyResults
from results.presenting.report.figures import decimal, one_decimal, p_value
from results.presenting.tables import Table, pct, signed_pct
from results.presenting.wording import interval

#: the divergent items listed (the results keep them all)
DIVERGENT_ROWS = 10
#: an item's text in a table is cut to this many characters
ITEM_TEXT_CHARS = 80


def _mcnemar_statistic(test: McNemar) -> str:
    """The χ² (none when no item is discordant)."""
    return "—" if test.statistic is None else decimal(test.statistic)


def paired_table(results: StudyResults) -> Table | None:
    rows_in = results.paired
    if not rows_in:
        return None
    rows = [
        [
            row.label,
            str(row.test.n_items),
            signed_pct(row.test.gap),
            # no interval from answers with no spread: the reason stands where it would be
            row.test.reason or interval(row.test.ci, signed_pct),
            p_value(row.test.p),
            f"{row.test.mcnemar.b} / {row.test.mcnemar.c}",
            _mcnemar_statistic(row.test.mcnemar),
            p_value(row.test.mcnemar.p),
        ]
        for row in rows_in
    ]
    first = rows_in[0].test
    return Table(
        "paired",
        "Each model against the people on the same items",
        [
            "Model",
            "Items",
            "Gap (model − humans)",
            "Gap 95% CI",
            "Gap p",
            "McNemar b / c",
            "McNemar χ²",
            "McNemar p",
        ],
        rows,
        notes=(
            f"Gap 95% CI and p: over {first.target}; {first.method}. "
            f"McNemar: the model {first.mcnemar.target} (b: model right, majority wrong; c: the "
            "reverse); χ² without continuity correction.",
        ),
    )


def band_table(results: StudyResults) -> Table | None:
    rows_in = results.human_band
    if not rows_in:
        return None
    rows = [
        [
            row.label,
            decimal(row.placed.model_kappa),
            decimal(row.placed.human_kappa.median),
            interval([row.placed.human_kappa.low, row.placed.human_kappa.high], decimal),
            str(row.placed.human_kappa.n_pairs),
            row.placed.verdict,
        ]
        for row in rows_in
    ]
    return Table(
        "human_band",
        "The human band: each model's κ with people against the people's κ with each other",
        ["Model", "Model–person κ", "Person–person κ (median)", "Human band", "Person pairs", "Verdict"],
        rows,
        notes=(
            "Model–person κ: Cohen's κ of the model with each person on the items both answered, averaged. The "
            "human band is the range of the person–person κs; the verdict says where the model's κ falls.",
        ),
    )


def irt_table(results: StudyResults) -> Table | None:
    irt = results.irt
    if not irt or not irt.models:
        return None
    rows = [
        [
            row.label,
            decimal(row.ability) + (" †" if row.ci_note else ""),
            interval(row.ci, decimal),
            one_decimal(row.percentile),
        ]
        for row in irt.models
    ]
    far = next((row.ci_note for row in irt.models if row.ci_note), "")
    reliability = irt.reliability_said
    return Table(
        "irt",
        f"Where each model stands among the people: abilities on the people population's scale "
        f"(0 = its mean, 1 = its SD), {irt.model.upper()} model",
        ["Model", "Ability", "Ability 95% CI", "Percentile among participants"],
        rows,
        notes=(
            f"Fitted on {irt.people} people and {irt.items_used} items ({irt.items_dropped_all_right} "
            f"dropped as answered right by all, {irt.items_dropped_all_wrong} as answered wrong by all)"
            + (f"; {reliability}." if reliability else ".")
            + ("" if irt.calibrated else f" The ability CIs are not calibrated: {irt.calibration_note}.")
            + (f" †: {far}." if far else ""),
        ),
    )


def divergent_table(results: StudyResults) -> Table | None:
    irt = results.irt
    if not irt or not irt.divergent_items:
        return None
    rows = [
        [
            row.text if len(row.text) <= ITEM_TEXT_CHARS else row.text[: ITEM_TEXT_CHARS - 1] + "…",
            pct(row.divergent.human_rate),
            pct(row.divergent.model_rate),
            decimal(row.divergent.statistic),
            p_value(row.divergent.p_adjusted),
        ]
        for row in irt.divergent_items[:DIVERGENT_ROWS]
    ]
    return Table(
        "divergent_items",
        "Items where models and people differ most",
        ["Item", "People right", "Models right", "Statistic", "p (adjusted)"],
        rows,
        notes=("p (adjusted): corrected for the number of items tested.",),
    )


def test_tables(results: StudyResults) -> list[Table]:
    tables = [paired_table(results), band_table(results), irt_table(results), divergent_table(results)]
    return [table for table in tables if table is not None]


@dataclass(frozen=True)
class Marker:
    label: str
    ability: float
    low: float | None
    high: float | None
    percentile: float


@dataclass(frozen=True)
class Placement:
    """The placement plot: the people's abilities as a strip, each model a marker with its CI."""

    people: list[float]
    models: list[Marker]

    @property
    def span(self) -> tuple[float, float]:
        values = [
            *self.people,
            *(v for m in self.models for v in (m.ability, m.low, m.high) if v is not None),
        ]
        low, high = min(values, default=-1.0), max(values, default=1.0)
        pad = max(0.25, 0.05 * (high - low))
        return low - pad, high + pad


def placement(results: StudyResults) -> Placement | None:
    irt = results.irt
    if not irt or not irt.models:
        return None
    return Placement(
        people=[float(value) for value in irt.people_abilities],
        models=[
            Marker(
                label=row.label,
                ability=float(row.ability),
                low=row.ci[0] if row.ci else None,
                high=row.ci[1] if row.ci else None,
                percentile=float(row.percentile),
            )
            for row in irt.models
        ],
    )
