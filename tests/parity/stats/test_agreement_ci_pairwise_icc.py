"""The CIs of the mean pairwise Cohen's κ (a bootstrap over items within units) and of the ICC(2,k)
(McGraw & Wong's F interval): the vectorised bootstrap is the one a plain per-resample loop gives,
the ICC's interval is the published one, and there is no interval, with its reason, where the
simulation did not measure one."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from parity.stats import Rating, agreement_by_unit, kappa_across_units
from parity.stats.agreement import icc2k_by_blocks
from parity.stats.agreement_ci import (
    MAX_PAIR_ITEMS,
    MIN_ITEMS,
    NO_KAPPA,
    pairwise_kappa_interval,
)
from parity.stats.icc_ci import CALIBRATION as ICC_CALIBRATION
from parity.stats.icc_ci import (
    METHOD,
    calibration_note,
    icc_interval,
    mcgraw_wong_interval,
)


def _unit(unit: str, raters: int, items: int, rng: np.random.Generator, missing: float = 0.0) -> list[Rating]:
    truth = rng.integers(3, size=items)
    rows = []
    for rater in range(raters):
        for item in range(items):
            if rng.random() < missing:
                continue
            label = truth[item] if rng.random() < 0.6 else rng.integers(3)
            rows.append(Rating(annotator=f"{unit}r{rater}", item=f"{unit}i{item}", answer="abc"[label], unit=unit))
    return rows


def _slow_mean_kappa(units: list[list[Rating]], *draws: np.ndarray) -> float:
    """The results' mean pairwise κ of one resample, the plain way: each unit's ratings rebuilt with
    its drawn items (a repeated draw becomes an item of its own) and `kappa_across_units` on them."""
    rows = []
    for ratings, drawn in zip(units, draws):
        # the items in the order they first appear, as the interval numbers them
        by_item: dict[str, list[Rating]] = {}
        for rating in ratings:
            by_item.setdefault(rating.item, []).append(rating)
        items = list(by_item)
        for position, index in enumerate(np.asarray(drawn).tolist()):
            for rating in by_item[items[index]]:
                rows.append(Rating(rating.annotator, f"{rating.item}#{position}", rating.answer, unit=rating.unit))
    value = kappa_across_units(agreement_by_unit(rows, with_pairs=False)).mean
    return np.nan if value is None else value


@pytest.mark.parametrize("method", ["percentile", "BCa"])
def test_the_vectorised_bootstrap_is_the_plain_per_resample_one(method: str) -> None:
    # two units, some answers missing (so pairs share different items), every item answered twice at least
    rng = np.random.default_rng(3)
    units = [_unit("u1", 3, 24, rng, missing=0.1), _unit("u2", 4, 21, rng, missing=0.1)]
    ratings = [rating for unit in units for rating in unit]
    for unit in units:
        counts: dict[str, int] = {}
        for rating in unit:
            counts[rating.item] = counts.get(rating.item, 0) + 1
        assert min(counts.values()) >= 2
    result = pairwise_kappa_interval(ratings, n_resamples=60, method=method, seed=4)
    plain = stats.bootstrap(
        tuple(np.arange(len({r.item for r in unit})) for unit in units),
        lambda *draws: _slow_mean_kappa(units, *draws),
        vectorized=False,
        n_resamples=60,
        method=method,
        confidence_level=0.95,
        random_state=np.random.default_rng(4),
    )
    assert result.mean_pairwise_kappa_ci95 == pytest.approx(
        [plain.confidence_interval.low, plain.confidence_interval.high], abs=1e-12
    )
    assert result.note is None and result.n_units == 2


def test_the_interval_brackets_the_estimate_and_narrows_with_items() -> None:
    rng = np.random.default_rng(8)
    ratings = [rating for unit in ("a", "b", "c", "d") for rating in _unit(unit, 5, 150, rng)]
    estimate = kappa_across_units(agreement_by_unit(ratings)).mean
    result = pairwise_kappa_interval(ratings)
    assert result.mean_pairwise_kappa_ci95 is not None and estimate is not None
    low, high = result.mean_pairwise_kappa_ci95
    assert low < estimate < high and high - low < 0.15
    assert pairwise_kappa_interval(ratings) == result


def test_no_interval_below_the_measured_items_or_past_the_pair_limit() -> None:
    rng = np.random.default_rng(9)
    few = pairwise_kappa_interval(_unit("u", 3, MIN_ITEMS - 1, rng) + _unit("v", 3, 40, rng))
    assert few.mean_pairwise_kappa_ci95 is None
    assert few.note == (
        f"no CI: unit u has {MIN_ITEMS - 1} items with two ratings or more, fewer than the {MIN_ITEMS} "
        "at which the interval's coverage was measured"
    )
    # 25 raters are 300 pairs: on 100 items, 30,000 pair × item cells
    many = pairwise_kappa_interval(_unit("u", 25, 100, rng))
    assert many.mean_pairwise_kappa_ci95 is None and 300 * 100 > MAX_PAIR_ITEMS
    assert many.note == (
        f"no CI: 300 rater pairs on 100 items (30,000 pair × item cells), more than the {MAX_PAIR_ITEMS:,} "
        "up to which the bootstrap is computed"
    )
    alone = [Rating("r1", f"i{item}", "a") for item in range(30)]
    assert pairwise_kappa_interval(alone).note == NO_KAPPA


def test_mcgraw_and_wong_on_shrout_and_fleiss_data() -> None:
    # Shrout & Fleiss (1979), Table 2 (6 targets × 4 judges); ICC(2,4) = 0.62, 95% CI [0.07, 0.93]
    # as R's psych::ICC prints it
    grades = np.array([[9, 2, 5, 8], [6, 1, 3, 2], [8, 4, 6, 8], [7, 1, 2, 6], [10, 5, 6, 9], [6, 2, 4, 7]], float)
    low, high = mcgraw_wong_interval(grades) or (None, None)
    assert (round(low, 3), round(high, 2)) == (0.071, 0.93)


def _grades(raters: int, items: int, block: int, seed: int) -> list[Rating]:
    rng = np.random.default_rng(seed)
    item_effect, rater_effect = rng.normal(size=items), rng.normal(scale=0.5, size=raters)
    rows = []
    for item in range(items):
        for rater in range(raters):
            if block < raters and rater == item % raters:
                continue
            grade = item_effect[item] + rater_effect[rater] + rng.normal()
            rows.append(Rating(annotator=f"r{rater}", item=f"i{item}", answer=repr(float(grade))))
    return rows


def test_the_icc_interval_with_one_block_is_mcgraw_and_wongs() -> None:
    from parity.stats.agreement import complete_grades

    rows = _grades(3, 40, 3, seed=1)
    result = icc_interval(rows)
    assert result.icc_ci95 == mcgraw_wong_interval(complete_grades(rows)[0]) and result.note is None
    assert result.method == METHOD and len(result.blocks) == 1
    icc = icc2k_by_blocks(rows).icc
    assert icc is not None and result.icc_ci95 is not None
    assert result.icc_ci95[0] < icc < result.icc_ci95[1]
    assert result.blocks[0].ci95 == result.icc_ci95


def test_the_icc_of_several_blocks_has_one_per_block_and_says_why_not_overall() -> None:
    rows = _grades(3, 90, 2, seed=2)
    result = icc_interval(rows)
    assert result.icc_ci95 is None and len(result.blocks) == 3
    assert all(block.ci95 is not None for block in result.blocks)
    rates = [row.bootstrap for row in ICC_CALIBRATION if row.block < row.raters]
    assert result.note is not None and result.note.startswith(
        "no CI for the weighted ICC: the grades fall into 3 blocks"
    )
    assert f"{100 * min(rates):.1f}–{100 * max(rates):.1f}%" in result.note
    assert [block.icc for block in result.blocks] == [block.icc for block in icc2k_by_blocks(rows).blocks]


def test_the_icc_has_no_interval_below_the_measured_items() -> None:
    result = icc_interval(_grades(3, 12, 3, seed=3))
    assert result.icc_ci95 is None and result.note is not None and "12 items" in result.note


def test_the_icc_calibration_note_is_the_record() -> None:
    rates = [row.mcgraw_wong for row in ICC_CALIBRATION if row.mcgraw_wong is not None]
    note = calibration_note()
    assert f"{100 * min(rates):.1f}–{100 * max(rates):.1f}%" in note  # type: ignore[type-var]
    for row in ICC_CALIBRATION:
        assert (f"{row.raters} raters × {row.items} items" in note) == (row.mcgraw_wong is not None)
