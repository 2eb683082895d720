"""The calibration harness in brief (perf/calibration: few replications, a wide tolerance): a change
that breaks the gap's CI, its test, McNemar's level or the human accuracy's interval fails here.
The full table (thousands of replications) is docs/results.md's, printed by `python -m perf.calibration`."""

from __future__ import annotations

import numpy as np
import pytest

from perf.calibration import gap, irt
from perf.calibration.truth import ATTENTIVE_PASS, CHANCE, LAYOUTS, draw

#: 300 replications: a rate's Monte Carlo SE is about 1.3 points at 95% and at 5%
REPS = 300
#: nominal ± 4.5 points: about 3.5 SE, so a calibrated figure fails one run in a few thousand,
#: while the items-only methods of before (72–76% coverage, 21–24% rejection) fail at once
TOLERANCE = 0.045


@pytest.mark.parametrize("layout", ["implicature", "tiny", "exclusions"])
def test_the_gap_mcnemar_and_human_accuracy_hold_their_nominal_rates(layout: str) -> None:
    rows = gap.rows(LAYOUTS[layout], REPS, seed=11)
    assert {row.figure for row in rows} >= {
        "gap p (no gap)",
        "gap 95% CI",
        "McNemar p",
        "human accuracy 95% t-interval",
    }
    off = [f"{row.figure}: {row.rate:.3f} against {row.nominal}" for row in rows if not row.within(TOLERANCE)]
    assert not off, off


def test_the_gap_test_holds_its_level_near_the_ceiling_with_few_items() -> None:
    """100 people × 20 items at 89% right: a model as good as the people is right on all 20 about
    one study in eight, and the test rejected its true null 12.8% of the time (400 replications)."""
    rows = {row.figure: row for row in gap.rows(LAYOUTS["ceiling"], REPS, seed=11)}
    assert rows["gap p (no gap)"].within(TOLERANCE), rows["gap p (no gap)"].rate
    # the CI may be conservative there (a model right on all 20 items says little), never below its level
    assert rows["gap 95% CI"].rate >= 0.95 - TOLERANCE


def test_a_screened_layout_recruits_careless_people_at_its_share_and_excludes_them_by_its_rule() -> None:
    """20% of recruits careless, 3 attention checks, excluded at 2 failures, a freed place refilled."""
    layout = LAYOUTS["exclusions"]
    rng = np.random.default_rng(3)
    draws = [draw(layout, rng) for _ in range(300)]
    screenings = [study.screening for study in draws if study.screening is not None]
    assert len(screenings) == len(draws)
    careless = np.concatenate([s.careless for s in screenings])
    failures = np.concatenate([s.failures for s in screenings])
    kept = np.concatenate([s.kept for s in screenings])
    # every recruit is kept exactly when they failed fewer checks than the threshold
    assert np.array_equal(kept, failures < layout.exclude_at)
    # the careless pass a check at chance: half of them fail 2 or more of 3; the attentive rarely
    assert careless.mean() == pytest.approx(layout.careless, abs=0.02)
    assert failures[careless].mean() == pytest.approx(layout.checks * (1 - CHANCE), abs=0.06)
    assert (~kept[careless]).mean() == pytest.approx(0.5, abs=0.03)
    assert failures[~careless].mean() == pytest.approx(layout.checks * (1 - ATTENTIVE_PASS), abs=0.02)
    assert (~kept[~careless]).mean() < 0.01
    for study, screening in zip(draws, screenings, strict=True):
        # each unit recruits until its places are filled: the last it recruits is kept
        assert np.array_equal(np.bincount(screening.unit[screening.kept]), [layout.people] * layout.units)
        assert all(screening.kept[np.flatnonzero(screening.unit == unit)[-1]] for unit in range(layout.units))
        # only the kept are analysed
        assert len(study.table().annotators) == layout.n_people
        assert np.array_equal(study.careless, screening.careless[screening.kept])
    # the careless kept answer at chance, whatever their drawn ability
    right = np.concatenate([study.right.reshape(layout.n_people, -1)[study.careless].ravel() for study in draws])
    assert right.mean() == pytest.approx(CHANCE, abs=0.01)


def test_without_those_who_failed_a_check_the_figures_hold_where_the_careless_bias_the_headline() -> None:
    """Items skewed easy, a fifth of recruits careless: those who pass the checks bias the headline's
    figures (its t-interval covered 87.5% at 2,000 replications), and the robustness table's row
    without everyone who failed a check holds its nominal rates."""
    rows = {row.figure: row for row in gap.rows(LAYOUTS["excl-easy"], REPS, seed=11)}
    assert not rows["human accuracy 95% t-interval"].within(TOLERANCE)
    strict = [row for figure, row in rows.items() if figure.endswith(gap.STRICT)]
    assert len(strict) == 3
    off = [f"{row.figure}: {row.rate:.3f} against {row.nominal}" for row in strict if not row.within(TOLERANCE)]
    assert not off, off


@pytest.mark.parametrize("layout", ["unbalanced", "exclusions"])
def test_the_placement_rows_compare_the_people_who_answered_with_their_own_abilities(layout: str) -> None:
    """Where a unit has fewer people than the layout's largest (unbalanced), or careless people answer
    at chance (exclusions), the people's origin and unit are measured over those in the table, and
    attentive, against their own true abilities, one value per draw."""
    rows = {row.figure: row for row in irt.rows(LAYOUTS[layout], 2, seed=11)}
    origin = rows["people's mean ability (the origin)"]
    slope = rows["people's abilities on their true ones (slope; the unit)"]
    assert (origin.reps, slope.reps) == (2, 2)


def test_a_draw_names_in_its_table_the_people_who_answered_in_order() -> None:
    study = draw(LAYOUTS["unbalanced"], np.random.default_rng(3))
    present = study.present()
    assert present.size == sum(LAYOUTS["unbalanced"].unit_people) < study.theta.size
    assert study.table().annotators == tuple(f"p{k}" for k in present)
