"""The data-quality rules of the monitor, against hand-computed numbers."""

from __future__ import annotations

from parity.stats import quality
from parity.stats.quality import ItemAnswers, PositionDropOff, UnitFill


def test_the_3_sd_rule_flags_one_very_fast_completion_among_eleven():
    # ten at 600 s and one at 60 s: mean 550.9, sample SD 162.8, limit 550.9 - 488.5 = 62.4 s
    seconds = {f"P{n}": 600.0 for n in range(10)} | {"fast": 60.0}
    assert quality.fast_completions(seconds) == {"fast"}


def test_the_3_sd_rule_cannot_flag_anyone_among_ten():
    # one outlier among n lies at most (n - 1) / sqrt(n) = 2.85 sample SDs from the mean for n = 10
    seconds = {f"P{n}": 600.0 for n in range(9)} | {"fast": 1.0}
    assert quality.fast_completions(seconds) == set()


def test_the_3_sd_rule_needs_three_completions_and_some_spread():
    assert quality.fast_completions({"a": 10.0, "b": 600.0}) == set()
    assert quality.fast_completions({"a": 60.0, "b": 60.0, "c": 60.0}) == set()


def test_fast_items_is_a_median_under_the_floor_over_enough_answers():
    durations = {"quick": [400, 900, 5000], "steady": [1400, 1600, 1700], "few": [100, 100], "edge": [1500, 1500, 1500]}
    assert quality.fast_items(durations) == {"quick"}
    assert quality.fast_items(durations, floor_ms=1601) == {"quick", "steady", "edge"}


def test_straight_lining_needs_five_answers_all_the_same():
    assert quality.straight_lining(["yes"] * 5)
    assert not quality.straight_lining(["yes"] * 4)
    assert not quality.straight_lining(["yes"] * 5 + ["no"])


def test_straight_lining_catches_one_answer_to_nine_in_ten_items_unless_the_gold_does_the_same():
    # "yes" to 14 of 15 items whose gold is "yes" for 8: near-constant, flagged
    golds = ["yes"] * 8 + ["no"] * 7
    assert quality.straight_lining(["yes"] * 14 + ["no"], golds)
    assert quality.modal_answer(["yes"] * 14 + ["no"], golds) == quality.ModalAnswer("yes", 14, 15, 8)
    # 9 of 10 is 90% exactly; 13 of 15 (87%) is not
    assert quality.straight_lining(["no"] * 9 + ["yes"])
    assert not quality.straight_lining(["yes"] * 13 + ["no"] * 2, golds)
    # the same answers right on items whose gold is "yes" for 14 of 15: what answering right looks like
    assert not quality.straight_lining(["yes"] * 14 + ["no"], ["yes"] * 14 + ["no"])
    # the words follow the parameters
    assert quality.straight_lining_rule() == (
        "one answer to 90% or more of 5 or more study items (unless it is also the gold answer of 90% or more of them)"
    )
    assert quality.straight_lining_rule(min_answers=8, share=0.8).startswith("one answer to 80% or more of 8 or more")


def test_the_hourly_pay_is_the_reward_over_the_median_time():
    assert quality.hourly_pence(450, 45 * 60) == 600.0  # £4.50 for 45 minutes is £6/h
    assert quality.hourly_pence(450, None) is None
    assert [quality.pay_verdict(p) for p in (599.9, 600, 899, 900, None)] == [
        "below_minimum",
        "below_recommended",
        "below_recommended",
        "ok",
        "unknown",
    ]


def test_an_item_is_broken_when_half_of_three_or_more_answers_are_invalid():
    items = [ItemAnswers("a", 4, 2), ItemAnswers("b", 2, 2), ItemAnswers("c", 5, 2)]
    assert [item.key for item in quality.broken_items(items)] == ["a"]


def test_a_position_is_reported_when_three_and_a_quarter_of_those_reaching_it_leave():
    rows = [PositionDropOff(1, 20, 3), PositionDropOff(2, 17, 2), PositionDropOff(3, 12, 3), PositionDropOff(4, 9, 0)]
    assert [row.position for row in quality.drop_off_positions(rows)] == [3]


def test_a_unit_lags_under_half_the_study_fill_once_the_study_is_a_quarter_full():
    units = [UnitFill("U1", 4, 4), UnitFill("U2", 4, 3), UnitFill("U3", 4, 0)]  # study 7/12 = 58%
    assert [unit.label for unit in quality.lagging_units(units)] == ["U3"]
    assert [unit.label for unit in quality.lagging_units([UnitFill("U1", 4, 2), UnitFill("U2", 4, 0)])] == ["U2"]
    assert quality.lagging_units([UnitFill("U1", 4, 1), UnitFill("U2", 4, 0)]) == []  # 1/8 full: too early
    assert quality.lagging_units([UnitFill("U1", 4, 4), UnitFill("U2", 4, 4)]) == []  # full


def test_the_warnings_say_what_is_wrong_in_words():
    said = quality.warnings(
        items=[ItemAnswers("row-7", 4, 3)],
        positions=[PositionDropOff(3, 10, 4)],
        units=[UnitFill("U1", 4, 4), UnitFill("U2", 4, 0)],
        pence_per_hour=450.0,
        median_minutes=60.0,
        fast=2,
        straight=1,
        pasted=0,
        failing_attention=1,
        finished=10,
    )
    assert said == [
        "Pay is below Prolific's minimum: £4.50/h at the median completion time of 60.0 min (minimum £6.00/h). "
        "Raise the reward or shorten the study.",
        "Item row-7 may be broken: 3 of 4 answers to it are invalid.",
        "Participants leave at item position 3: 4 of the 10 who reached it left there.",
        "Unit U2 is not filling: 0 of 4 places taken while the other units fill.",
        "Flagged for review: 2 fast, 1 straight-lining (see the list below).",
    ]


def test_nothing_is_said_about_a_healthy_study():
    assert (
        quality.warnings(
            items=[ItemAnswers("a", 10, 1)],
            positions=[PositionDropOff(1, 10, 1)],
            units=[UnitFill("U1", 2, 1), UnitFill("U2", 2, 1)],
            pence_per_hour=1000.0,
            median_minutes=20.0,
            fast=0,
            straight=0,
            pasted=0,
            failing_attention=0,
            finished=2,
        )
        == []
    )


def test_the_banner_counts_tab_leavers_canary_carriers_and_bots():
    said = quality.warnings(
        items=[],
        positions=[],
        units=[],
        pence_per_hour=None,
        median_minutes=None,
        fast=0,
        straight=0,
        pasted=1,
        failing_attention=0,
        finished=10,
        left_tab=3,
        canary=1,
        bots=2,
    )
    assert said == [
        "Flagged for review: 1 pasting, 3 leaving the tab, 1 carrying the canary word, "
        "2 bot-like (hidden field or no-script speed) (see the list below)."
    ]
