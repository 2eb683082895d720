"""The agreement statistics' bootstrap CIs: the vectorised statistics equal the ones the results
print, the interval is seeded and brackets its estimate, no interval where it would mean nothing,
and the sentence printed beside it is derived from the calibration record."""

from __future__ import annotations

import numpy as np
import pytest

from parity.stats import Rating, fleiss_kappa, krippendorff_alpha
from parity.stats.agreement_ci import (
    CALIBRATED,
    CALIBRATION,
    DEGENERATE,
    MIN_ITEMS,
    POPULATION_KAPPA,
    Coverage,
    agreement_intervals,
    calibration_note,
    fleiss_kappa_of_counts,
    nominal_alpha_of_counts,
)
from parity.stats.matrix import label_matrix


def _ratings(raters: int, items: int, *, seed: int, missing: float = 0.0, accuracy: float = 0.6) -> list[Rating]:
    rng = np.random.default_rng(seed)
    truth = rng.integers(3, size=items)
    rows = []
    for rater in range(raters):
        for item in range(items):
            label = truth[item] if rng.random() < accuracy else rng.integers(3)
            answer = None if rng.random() < missing else "abc"[label]
            rows.append(Rating(annotator=f"r{rater}", item=f"i{item}", answer=answer))
    return rows


def _counts(rows: list[Rating]) -> np.ndarray:
    counts = label_matrix(rows).item_counts()
    return counts[counts.sum(axis=1) >= 2]


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_the_statistics_of_the_count_table_equal_the_printed_ones(seed: int) -> None:
    # with answers missing, so items have different numbers of raters
    rows = _ratings(4, 30, seed=seed, missing=0.2)
    assert float(fleiss_kappa_of_counts(_counts(rows))) == pytest.approx(fleiss_kappa(rows), abs=1e-12)
    assert float(nominal_alpha_of_counts(_counts(rows))) == pytest.approx(krippendorff_alpha(rows), abs=1e-12)


def test_the_interval_brackets_the_estimate_is_seeded_and_narrows_with_items() -> None:
    rows = _ratings(3, 40, seed=3)
    result = agreement_intervals(rows)
    assert result.note is None and result.n_items == 40
    assert result.fleiss_kappa_ci95 is not None and result.krippendorff_alpha_ci95 is not None
    assert result.fleiss_kappa_ci95[0] < fleiss_kappa(rows) < result.fleiss_kappa_ci95[1]  # type: ignore[operator]
    assert result.krippendorff_alpha_ci95[0] < krippendorff_alpha(rows) < result.krippendorff_alpha_ci95[1]  # type: ignore[operator]
    # κ's sampling SD is about 0.13 at 3 raters × 40 items: the interval is about half a unit wide
    assert 0.3 < result.fleiss_kappa_ci95[1] - result.fleiss_kappa_ci95[0] < 0.7
    assert agreement_intervals(rows) == result
    wide = agreement_intervals(_ratings(3, 400, seed=3)).fleiss_kappa_ci95
    assert wide is not None and wide[1] - wide[0] < (result.fleiss_kappa_ci95[1] - result.fleiss_kappa_ci95[0]) / 2


def test_no_interval_below_the_measured_number_of_items() -> None:
    result = agreement_intervals(_ratings(3, MIN_ITEMS - 1, seed=4))
    assert result.fleiss_kappa_ci95 is None and result.krippendorff_alpha_ci95 is None
    assert result.note == (
        f"no CI: {MIN_ITEMS - 1} items with two ratings or more, fewer than the {MIN_ITEMS} at which "
        "the interval's coverage was measured"
    )


def test_no_interval_when_every_rating_has_one_label() -> None:
    rows = [Rating(annotator=f"r{r}", item=f"i{i}", answer="a") for r in range(3) for i in range(50)]
    result = agreement_intervals(rows)
    assert (result.fleiss_kappa_ci95, result.krippendorff_alpha_ci95, result.note) == (None, None, DEGENERATE)


def test_the_calibration_note_is_the_record() -> None:
    rates = [rate for row in CALIBRATION for _, rate in row.rates()]
    note = calibration_note()
    assert f"population value ({POPULATION_KAPPA:.2f}) " in note
    assert f"{100 * min(rates):.1f}–{100 * max(rates):.1f}%" in note
    for row in CALIBRATION:
        per_unit = f"{row.raters} raters × {row.items} items"
        assert (per_unit if row.units == 1 else f"{row.units} units of {per_unit}") in note
    low, high = CALIBRATED
    for row in CALIBRATION:
        for name, rate in row.rates():
            assert (f"{name} at {row.short}: {100 * rate:.1f}%" in note) == (not low <= rate <= high)


def test_the_calibration_note_names_a_layout_outside_the_band(monkeypatch: pytest.MonkeyPatch) -> None:
    import parity.stats.agreement_ci as module

    monkeypatch.setattr(
        module,
        "CALIBRATION",
        (Coverage(3, 40, 400, 0.95, 0.951, 0.95), Coverage(3, 20, 400, 0.92, 0.95, 0.95, units=2)),
    )
    assert calibration_note().endswith("; outside 93.5–96.5%: Fleiss' κ at 2 × 3 × 20: 92.0%")


def test_the_calibration_truth_is_what_many_items_give() -> None:
    # the population κ the simulation measures coverage against is the statistics' large-sample value
    from perf.calibration.agreement import RatingLayout, draw, population_kappa

    assert population_kappa() == pytest.approx(POPULATION_KAPPA, abs=0.005)
    rows = draw(RatingLayout("big", 3, 20_000), np.random.default_rng(0))
    assert fleiss_kappa(rows) == pytest.approx(population_kappa(), abs=0.01)
    assert krippendorff_alpha(rows) == pytest.approx(population_kappa(), abs=0.01)
