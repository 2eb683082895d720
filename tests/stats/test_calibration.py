"""The calibration harness in brief (perf/calibration: few replications, a wide tolerance): a change
that breaks the gap's CI, its test, McNemar's level or the human accuracy's interval fails here.
The full table (thousands of replications) is docs/results.md's, printed by `python -m perf.calibration`."""

from __future__ import annotations

import pytest

from perf.calibration import gap
from perf.calibration.truth import LAYOUTS

#: 300 replications: a rate's Monte Carlo SE is about 1.3 points at 95% and at 5%
REPS = 300
#: nominal ± 4.5 points: about 3.5 SE, so a calibrated figure fails one run in a few thousand,
#: while the items-only methods of before (72–76% coverage, 21–24% rejection) fail at once
TOLERANCE = 0.045


@pytest.mark.parametrize("layout", ["implicature", "tiny"])
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
