"""A reward is judged against the recruiting panel's minimum: Prolific's £6/h
(https://researcher-help.prolific.com/hc/en-gb/articles/4407695146002-Prolific-s-payment-principles),
CloudResearch Connect's $7.50/h
(https://connect-researcher-help.cloudresearch.com/hc/en-us/articles/5046181555732-Project-Cost); MTurk,
SONA and a lab's own link set none."""

from __future__ import annotations

from parity.stats import quality
from studies.design.estimates import pay_refusal
from studies.design.pay import hourly_pay


def test_prolifics_verdicts_are_what_they_were():
    assert hourly_pay(250, 30).verdict == "below Prolific's £6/h minimum"
    assert str(hourly_pay(250, 30)) == "£5.00/h"
    assert hourly_pay(400, 30).verdict == "below the recommended £9/h"
    assert (
        pay_refusal(250, 30, None)
        == "£2.50 for 30 minutes is £5.00/h, below Prolific's minimum of £6/h: pay at least £3.00."
    )


def test_connects_minimum_is_seven_dollars_fifty_an_hour():
    # $3.50 for 30 minutes is $7.00/h: under Connect's minimum, though over Prolific's £6
    pay = hourly_pay(350, 30, "connect")
    assert str(pay) == "$7.00/h" and pay.below_minimum
    assert pay.verdict == "below CloudResearch Connect's $7.50/h minimum"
    assert hourly_pay(400, 30, "connect").verdict == "below the recommended $10/h"
    assert pay_refusal(350, 30, None, "connect") == (
        "$3.50 for 30 minutes is $7.00/h, below CloudResearch Connect's minimum of $7.50/h: pay at least $3.75."
    )


def test_a_panel_without_a_minimum_refuses_no_reward():
    for panel in ("mturk", "sona", "lab"):
        assert pay_refusal(1, 30, None, panel) is None
        assert not hourly_pay(1, 30, panel).below_minimum
    assert hourly_pay(1, 30, "mturk").verdict == "Amazon Mechanical Turk sets no minimum"


def test_the_monitors_warning_names_the_panels_minimum():
    floor = quality.PayFloor(panel="CloudResearch Connect", minimum=750, recommended=1000, symbol="$")
    said = quality.warnings(
        items=[],
        positions=[],
        units=[],
        pence_per_hour=700,
        median_minutes=30,
        fast=0,
        straight=0,
        pasted=0,
        failing_attention=0,
        finished=5,
        floor=floor,
    )
    assert said[0].startswith("Pay is below CloudResearch Connect's minimum: $7.00/h at the median completion time")
    assert quality.pay_verdict(700, 750, 1000) == "below_minimum"
    assert quality.pay_verdict(700, None, None) == "no_minimum"
