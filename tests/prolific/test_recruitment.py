"""Recruiting until precise against the stand-in: participants arrive in rounds, the places are raised
in steps until the confidence sequence of human accuracy is narrow enough, then the study is stopped; a budget
stops it earlier, with a flag; a step run twice raises once."""

from __future__ import annotations

import math
import statistics
from io import StringIO

import pytest
from django.core.management import call_command
from scipy import stats

from annotation.models import Item
from parity.stats.looks import FIRST_LOOK
from prolific.models import ProlificFlag, ProlificStudy, RecruitmentPoint
from prolific.recruitment import prolific_recruit_configure, recruitment_step
from prolific.services import ProlificStudyError, prolific_study_create, prolific_study_transition
from results.computing.assemble import study_results_tree
from results.computing.tree import StudyResults
from results.loading.selectors import load_study_data
from results.pipeline import study_monitor
from results.presenting.report import render_report
from tests.factories import small_study
from tests.prolific.helpers import arrive


def one_wrong():
    """Answers the first study item wrong and everything else right."""
    wrong = []

    def choose(item: Item) -> str:
        if not item.is_attention_check and not wrong:
            wrong.append(item.pk)
            return "no" if item.gold == "yes" else "yes"
        return item.gold

    return choose


def published(
    name: str,
    *,
    places: int,
    value: float,
    step: int,
    max_spend_pence: int,
    rule: str | None = "confidence_sequence",
    per_unit: int = 10,
) -> ProlificStudy:
    # units of 3 items holding `per_unit` people each: Parity's capacity is not what limits the places
    # £4.50 a place, whatever the design's estimate: the budgets below count in it
    study = small_study(
        name, unit_size=3, units=2, per_unit=per_unit, attention_checks=2, exclude_at=2, reward_pence=450
    )
    found = prolific_study_create(study=study, places=places)
    prolific_study_transition(prolific_study=found, action="publish")
    return prolific_recruit_configure(
        prolific_study=found, kind="ci_width", value=value, max_spend_pence=max_spend_pence, step=step, rule=rule
    )


def fill(standin, found: ProlificStudy, arrived: int) -> int:
    """Everyone the open places admit arrives and completes: alternately all right and one item wrong
    (accuracy 1 or 2/3)."""
    found.refresh_from_db()
    while arrived < found.places:
        arrived += 1
        bot, _ = arrive(standin, found.study, found.prolific_id, arrived)
        bot.complete(None if arrived % 2 else one_wrong())
    return arrived


def patches(standin) -> int:
    return sum(1 for method, path in standin.calls if method == "PATCH" and "/studies/" in path)


def test_places_are_raised_in_steps_until_the_ci_is_narrow_enough(implicature, standin):
    found = published("precise", places=4, value=50, step=2, max_spend_pence=450 * 20)
    arrived = 0
    assert recruitment_step(found).action == "wait"  # no one yet: 4 places open
    for _ in range(10):
        arrived = fill(standin, found, arrived)
        point = recruitment_step(found)
        if point.action == "stop":
            break
        assert point.action == "raise" and point.places == arrived + 2
        assert standin.studies[found.prolific_id]["total_available_places"] == point.places
    points = list(RecruitmentPoint.objects.filter(prolific_study=found).exclude(action="wait"))
    # accuracies alternate 1 and 2/3, in the order they completed: the confidence sequence over 4, 6 and
    # 8 people is 73.0, 61.7 and 54.1 points wide, wider than 50; over 10 people 48.7: the stop (the
    # t-interval would have stopped at 10 people on a 26-point target: it is 25.1 wide there)
    assert [(p.action, p.completed, p.places) for p in points] == [
        ("raise", 4, 6),
        ("raise", 6, 8),
        ("raise", 8, 10),
        ("stop", 10, 10),
    ]
    assert all(p.ci_width > 50 for p in points[:-1]) and points[-1].ci_width <= 50
    assert [round(p.ci_width, 1) for p in points] == [73.0, 61.7, 54.1, 48.7]
    assert standin.studies[found.prolific_id]["status"] == "AWAITING REVIEW"
    assert not ProlificFlag.objects.filter(kind=ProlificFlag.Kind.BUDGET_REACHED).exists()

    # the width is the results page's interval of human accuracy: the sequence the rule stopped on
    results = study_results_tree(load_study_data(found.study)).to_json()
    low, high = results["human"]["accuracy"]["ci95"]
    assert abs((high - low) * 100 - points[-1].ci_width) < 1e-9
    assert results["human"]["accuracy"]["ci_method"] == "confidence_sequence"
    # and the report's methods name the correction, with the target's width
    report = render_report(StudyResults.from_json(results), "markdown")
    assert (
        "Recruitment stopped when the 95% confidence sequence of human accuracy (Waudby-Smith and Ramdas), "
        "valid at any stopping time, was at most 50.0 points wide; the interval reported is that sequence at the stop."
    ) in report
    assert "a confidence sequence over participants in the order they completed" in report
    assert points[-1].kept == results["human"]["n_annotators"] == arrived

    # stopped: a later step waits and calls Prolific no more
    calls = len(standin.calls)
    assert recruitment_step(found).action == "wait" and len(standin.calls) == calls

    monitor = study_monitor(found.study).recruitment
    assert monitor is not None
    assert monitor.target == "95% confidence sequence of human accuracy at most 50 points wide"
    assert monitor.remaining_pence == 450 * (20 - points[-1].places) and not monitor.budget_reached
    assert [p.ci_width for p in monitor.points if p.action != "wait"] == [p.ci_width for p in points]


def test_the_monitor_shows_no_recruitment_without_a_target(implicature, standin, admin_client):
    study = small_study("no target")
    prolific_study_create(study=study, places=2)
    assert study_monitor(study).recruitment is None
    assert "Recruiting until precise" not in admin_client.get(f"/studies/{study.pk}/monitor/").content.decode()


def test_the_budget_stops_recruitment_before_the_target_with_a_flag(implicature, standin, admin_client):
    # £4.50 a place; £27 pays for 6 places: one raise, then the budget is reached
    found = published("thrifty", places=4, value=1, step=4, max_spend_pence=2700)
    arrived = fill(standin, found, 0)
    point = recruitment_step(found)
    assert (point.action, point.places) == ("raise", 6)  # 4 + 4 would cost £36
    arrived = fill(standin, found, arrived)
    point = recruitment_step(found)
    assert point.action == "stop" and point.ci_width > 1
    assert (
        point.reason == "budget reached before the target (95% confidence sequence of human accuracy at most 1 points "
        "wide): "
        "6 places, £27.00 of £27.00"
    )
    assert standin.studies[found.prolific_id]["total_available_places"] == 6
    assert standin.studies[found.prolific_id]["status"] == "AWAITING REVIEW"
    flag = ProlificFlag.objects.get(kind=ProlificFlag.Kind.BUDGET_REACHED)
    assert flag.prolific_study == found and "budget reached before the target" in flag.detail

    monitor = study_monitor(found.study).recruitment
    assert monitor is not None
    assert monitor.budget_reached and monitor.remaining_pence == 0
    page = admin_client.get(f"/studies/{found.study.pk}/monitor/").content.decode()
    assert "£27.00 of the £27.00 budget" in page and "<strong>£0.00 left</strong>" in page
    assert "The budget stopped recruitment before the target." in page
    assert page.count("<td>raise: every place taken") == 1 and "<td>stop: budget reached" in page
    api = admin_client.get(f"/api/studies/{found.study.pk}/monitor/").json()["recruitment"]
    assert (api["budget_reached"], api["remaining_pence"], api["places"]) == (True, 0, 6)
    assert [(p["action"], p["places"]) for p in api["points"]] == [("raise", 6), ("stop", 6)]


def test_a_step_run_twice_raises_once(implicature, standin):
    found = published("twice", places=2, value=5, step=3, max_spend_pence=450 * 20)
    fill(standin, found, 0)
    assert recruitment_step(found).action == "raise"
    assert recruitment_step(found).action == "wait"
    assert patches(standin) == 1
    assert standin.studies[found.prolific_id]["total_available_places"] == 5
    assert ProlificStudy.objects.get(pk=found.pk).places == 5
    assert list(RecruitmentPoint.objects.values_list("action", "places")) == [("raise", 5), ("wait", 5)]


def test_the_command_sets_the_target_and_sync_runs_a_step(implicature, standin):
    study = small_study("by cron", unit_size=3, units=2, per_unit=10, attention_checks=2, exclude_at=2)
    found = prolific_study_create(study=study, places=2)
    prolific_study_transition(prolific_study=found, action="publish")
    out = StringIO()
    call_command(
        "prolific",
        "recruit",
        study.name,
        "--target",
        "per_unit",
        "--value",
        "1",
        "--step",
        "2",
        "--max-spend",
        "9000",
        stdout=out,
    )
    assert "0 completed, CI width undefined, 2 places; wait: 2 of 2 places still open." in out.getvalue()
    fill(standin, found, 0)
    out = StringIO()
    call_command("prolific", "sync", stdout=out)
    # two completions, one per unit (Parity fills the units in turn): the target is met
    assert "2 submissions" in out.getvalue() and "stop: target met: 1 completions in every unit." in out.getvalue()
    assert standin.studies[found.prolific_id]["status"] == "AWAITING REVIEW"
    out = StringIO()
    call_command("prolific", "recruit", stdout=out)
    assert "wait: the study is not recruiting on Prolific." in out.getvalue()


def test_a_new_study_recruits_by_planned_looks_and_stops_only_at_a_look(implicature, standin, admin_client):
    # no rule named: a new study's is planned looks. Accuracies alternate 1 and 2/3 (SD about 0.17):
    # a 14-point target takes all three looks
    found = published("looks", places=4, value=14, step=2, max_spend_pence=450 * 80, rule=None, per_unit=40)
    assert found.target_rule == "planned_looks"
    arrived, looks = 0, []
    for _ in range(10):
        arrived = fill(standin, found, arrived)
        point = recruitment_step(found)
        looks.append((point.action, point.completed, point.places))
        if point.action == "stop":
            break
    # each look's number worked out here from the accuracies, by the formula the rule states
    accuracies = [1.0 if k % 2 else 2 / 3 for k in range(1, arrived + 1)]

    def asks(n: int) -> int:
        t = stats.t.ppf(0.98, n - 1)
        return math.ceil((2 * t * statistics.stdev(accuracies[:n]) / 0.14) ** 2)

    second = max(FIRST_LOOK + 1, math.ceil(0.7 * asks(FIRST_LOOK)))
    last = asks(second)
    assert FIRST_LOOK < second < last
    # straight from 4 places to the first look's 20, then to each look's number: never by the step
    assert looks == [
        ("raise", 4, FIRST_LOOK),
        ("raise", FIRST_LOOK, second),
        ("raise", second, last),
        ("stop", last, last),
    ]
    assert all(p.ci_width is None for p in RecruitmentPoint.objects.filter(prolific_study=found))

    # the interval printed is the mean ± 7 points, named as such
    results = study_results_tree(load_study_data(found.study)).to_json()
    accuracy = results["human"]["accuracy"]
    assert accuracy["ci_method"] == "fixed_width_planned_looks"
    mean = statistics.fmean(accuracies)
    assert accuracy["ci95"] == pytest.approx([mean - 0.07, min(mean + 0.07, 1.0)])
    report = render_report(StudyResults.from_json(results), "markdown")
    assert "Recruitment stopped at the last of up to three planned looks" in report
    assert "the mean ± half the target of 14.0 points" in report

    monitor = study_monitor(found.study).recruitment
    assert monitor is not None and monitor.planned is not None
    looks = monitor.planned
    assert monitor.rule == "planned_looks" and looks.stopped_at == last and looks.forecast is None
    assert [(look.n, look.needed) for look in looks.looks] == [
        (FIRST_LOOK, asks(FIRST_LOOK)),
        (second, last),
        (last, last),
    ]
    page = admin_client.get(f"/studies/{found.study.pk}/monitor/").content.decode()
    assert f"Recruitment stopped at the look of {last}." in page and "there is no early stop" in page


def test_the_rule_is_refused_unless_known_and_kept_when_not_named(implicature, standin):
    found = published("rules", places=4, value=10, step=2, max_spend_pence=4500)
    with pytest.raises(ProlificStudyError, match="unknown rule 'peeking'"):
        prolific_recruit_configure(
            prolific_study=found, kind="ci_width", value=10, max_spend_pence=4500, rule="peeking"
        )
    found.refresh_from_db()
    assert found.target_rule == "confidence_sequence"
    prolific_recruit_configure(prolific_study=found, kind="ci_width", value=8, max_spend_pence=4500)
    found.refresh_from_db()
    assert (found.target_rule, found.target_value) == ("confidence_sequence", 8)


def test_the_command_chooses_the_rule(implicature, standin):
    study = small_study("rule by cron", unit_size=3, units=2, per_unit=10, attention_checks=2, exclude_at=2)
    found = prolific_study_create(study=study, places=2)
    prolific_study_transition(prolific_study=found, action="publish")
    common = ["--target", "ci_width", "--value", "10", "--max-spend", "9000"]
    out = StringIO()
    call_command("prolific", "recruit", study.name, *common, "--rule", "confidence_sequence", stdout=out)
    found.refresh_from_db()
    assert found.target_rule == "confidence_sequence"
    assert "wait: 2 of 2 places still open." in out.getvalue()
    out = StringIO()
    call_command("prolific", "recruit", study.name, *common, "--rule", "planned_looks", stdout=out)
    found.refresh_from_db()
    assert found.target_rule == "planned_looks"
    assert "CI width undefined" in out.getvalue()
