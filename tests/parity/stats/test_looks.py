"""Recruiting until precise by planned looks: the looks replayed from the accuracies, the decision they
drive, the interval printed at the stop, the forecast of what the target will take, and the price
and coverage of the rule, simulated."""

from __future__ import annotations

import math
import statistics
from dataclasses import replace

import numpy as np
import pytest
from scipy import stats

from parity.stats.looks import (
    FIRST_LOOK,
    INTERIM_SHARE,
    LOOK_CONFIDENCE,
    fixed_width_interval,
    forecast,
    planned_looks,
)
from parity.stats.recruitment import PLANNED_LOOKS, RAISE, STOP, WAIT, Standing, Target, next_action
from perf.calibration.recruitment import prices
from perf.calibration.truth import LAYOUTS


def asks(values: list[float], width: float) -> int:
    """⌈(2 t s / W)²⌉ worked out here: t the 98% quantile on n − 1 degrees of freedom."""
    t = stats.t.ppf(0.5 + LOOK_CONFIDENCE / 2, len(values) - 1)
    return math.ceil((2 * t * statistics.stdev(values) / (width / 100)) ** 2)


def accuracies(n: int, seed: int = 3) -> list[float]:
    return np.random.default_rng(seed).beta(8, 3, n).tolist()


def test_the_looks_ask_for_what_the_spread_of_the_first_participants_needs():
    values = accuracies(400)
    first = asks(values[:FIRST_LOOK], 10)
    second_at = max(FIRST_LOOK + 1, math.ceil(INTERIM_SHARE * first))
    last_at = asks(values[:second_at], 10)
    assert FIRST_LOOK < second_at < last_at < 400  # this draw takes all three looks

    # before the first look: no look yet, the first one reads FIRST_LOOK
    early = planned_looks(values[: FIRST_LOOK - 1], 10)
    assert (early.looks, early.next_n, early.stopped) == ((), FIRST_LOOK, False)
    # between looks: each look read the first n participants only, whoever came after
    middle = planned_looks(values[: second_at + 1], 10)
    assert [(look.n, look.needed) for look in middle.looks] == [(FIRST_LOOK, first), (second_at, last_at)]
    assert middle.next_n == last_at and not middle.stopped
    # the last look stops the study, whatever the spread of the participants it reads
    done = planned_looks(values, 10)
    assert done.stopped_at == last_at and done.next_n is None and len(done.looks) == 3
    assert planned_looks(values[:last_at], 10) == done


def test_a_look_whose_participants_already_suffice_stops_the_study():
    values = accuracies(FIRST_LOOK + 5)
    # a target so wide that the first look's spread asks for fewer than it read
    assert asks(values[:FIRST_LOOK], 60) <= FIRST_LOOK
    plan = planned_looks(values, 60)
    assert plan.stopped_at == FIRST_LOOK and len(plan.looks) == 1


def test_the_looks_never_depend_on_the_mean():
    # shifting every accuracy moves the mean and nothing else: the same looks, the same stop
    values = accuracies(400)
    shifted = [v - 0.2 for v in values]
    plan, moved = planned_looks(values, 8), planned_looks(shifted, 8)
    assert [(look.n, look.needed) for look in plan.looks] == [(look.n, look.needed) for look in moved.looks]
    assert (plan.next_n, plan.stopped_at) == (moved.next_n, moved.stopped_at)


def test_the_interval_at_the_stop_is_the_target_wide_and_stays_within_0_and_1():
    interval = fixed_width_interval([0.6, 0.7, 0.8], 10)
    assert interval is not None and (interval.low, interval.high) == pytest.approx((0.65, 0.75))
    near_ceiling = fixed_width_interval([1.0, 0.98], 10)
    assert near_ceiling is not None and (near_ceiling.low, near_ceiling.high) == pytest.approx((0.94, 1.0))
    assert fixed_width_interval([], 10) is None


def test_bad_targets_are_refused_with_a_reason():
    with pytest.raises(ValueError, match="target width must be positive"):
        planned_looks([0.5] * 30, 0)
    with pytest.raises(ValueError, match="first look needs at least two"):
        planned_looks([0.5] * 30, 10, first=1)


def test_the_forecast_is_the_last_looks_formula_with_the_variances_95_percent_range():
    values = accuracies(12)
    found = forecast(values, 10)
    assert found is not None
    n, s = len(values), statistics.stdev(values)
    low_sd = s * math.sqrt((n - 1) / stats.chi2.ppf(0.975, n - 1))
    high_sd = s * math.sqrt((n - 1) / stats.chi2.ppf(0.025, n - 1))
    t = stats.t.ppf(0.5 + LOOK_CONFIDENCE / 2, n - 1)
    expected = [max(n, FIRST_LOOK, math.ceil((2 * t * sd / 0.1) ** 2)) for sd in (s, low_sd, high_sd)]
    assert (found.expected, found.low, found.high) == tuple(expected)
    assert found.low <= found.expected <= found.high and found.kept == n
    # nothing to forecast from: one participant, or no spread at all
    assert forecast(values[:1], 10) is None
    assert forecast([0.8, 0.8, 0.8], 10) is None


LOOKS = Target(kind="ci_width", value=10, step=4, max_spend_pence=450 * 60, reward_pence=450, rule=PLANNED_LOOKS)


def test_planned_looks_raise_the_places_straight_to_the_next_look():
    values = accuracies(400)
    before = planned_looks(values[:7], 10)
    # 7 kept, 1 excluded, 2 working fill the 10 places: the first look needs 20 kept, so 11 more places
    decision = next_action(Standing(completed=8, working=2, places=10, kept=7, looks=before), LOOKS)
    assert (decision.action, decision.places) == (RAISE, 21)
    assert decision.reason == "every place taken; look 1 reads 20 kept participants (7 so far): raise to 21"
    # enough people working to reach the look: wait for them rather than add a place
    waiting = next_action(Standing(completed=15, working=5, places=20, kept=15, looks=before), LOOKS)
    assert (waiting.action, waiting.places) == (WAIT, 20)
    assert waiting.reason == "look 1 reads 20 kept participants: 5 still working"
    # the step of the other rules plays no part: the second look's number, unless the budget caps it
    after = planned_looks(values[:20], 10)
    wanted = after.next_n
    assert wanted is not None and wanted - 20 > LOOKS.step
    standing = Standing(completed=20, working=0, places=20, kept=20, looks=after)
    assert next_action(standing, LOOKS).places == wanted
    thrifty = replace(LOOKS, max_spend_pence=450 * (wanted - 1))
    capped = next_action(standing, thrifty)
    assert (capped.action, capped.places) == (RAISE, wanted - 1) and "budget allows no more" in capped.reason


def test_planned_looks_stop_at_the_look_that_says_enough_and_never_on_a_narrow_interval():
    values = accuracies(400)
    plan = planned_looks(values, 10)
    n = plan.stopped_at
    assert n is not None
    decision = next_action(Standing(completed=n, working=3, places=n + 3, kept=n, looks=plan), LOOKS)
    assert decision.action == STOP
    assert decision.reason == (
        f"target met: 95% interval of human accuracy 10 points wide, by planned looks (look 3 at {n} kept participants)"
    )
    # between looks, a width that would meet the target says nothing: the looks decide
    between = planned_looks(values[: n - 1], 10)
    decision = next_action(
        Standing(completed=n - 1, working=0, places=n - 1, kept=n - 1, ci_width=1.0, looks=between), LOOKS
    )
    assert decision.action == RAISE


def test_planned_looks_cover_at_the_stop_near_the_ceiling_at_a_fair_price():
    # items skewed easy: accuracies crowd near 100% and are skewed, the hardest of the layouts for a
    # rule that stops on the spread (a small SD comes with a high mean). The confidence sequence, on
    # the same people, takes several times the oracle's n (a fixed n that knew the people's SD).
    looks, sequence = prices(LAYOUTS["easy"], reps=60, seed=2)
    assert looks.coverage >= 0.9, looks  # 60 replications: the MC SE is about 3 points
    assert looks.ratio <= 1.5, looks
    assert sequence.ratio > 2 * looks.ratio, sequence
    assert looks.widest <= 10.0 + 1e-9
