"""The headline under other exclusion rules (`results.computing.robustness`): a small study walked through
the views with one participant excluded for failed attention checks, one flagged for review and two
answers under an answer floor raised afterwards. Each row's figures are checked against the stored
answers read directly (each person's share right, their mean, the t-interval over people, the model's
gap item by item), never against typed-in numbers."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from parity.stats.intervals import t_mean_ci
from results.computing.assemble import study_results_tree
from results.computing.robustness import rule_label
from results.loading.selectors import load_study_data
from studies.models import Participant, Response
from tests.factories import Bot, pid, small_study
from tests.results.conftest import FLIP, model_run

pytestmark = pytest.mark.django_db

#: every answer's time: slow enough that no behaviour flag (fast items, reading floor) is raised
SLOW_MS = 20_000
FLOOR_MS = 1_000


def _wrong_on_first(n: int):
    """Wrong on the first `n` real items shown, right on the rest and on the checks."""
    seen: list[str] = []

    def choose(item) -> str:
        if item.is_attention_check:
            return item.gold
        seen.append(item.key)
        return FLIP[item.gold] if len(seen) <= n else item.gold

    return choose


def _fails_the_checks(item) -> str:
    """Wrong on the checks (so excluded) and on every real item (so putting them back shows)."""
    return FLIP[item.gold]


@pytest.fixture
def study(implicature):
    return robustness_study()


def robustness_study():
    """Four people, one excluded for failed checks, one flagged, two answers under a floor raised later,
    and a model run wrong on one item."""
    study = small_study("robustness", units=1, unit_size=4, per_unit=4, attention_checks=2, exclude_at=2)
    plan = [(1, None), (2, _wrong_on_first(2)), (3, _fails_the_checks), (4, None)]
    for number, choose in plan:
        Bot(study, pid(number)).complete(choose)
    Response.objects.filter(participant__study=study).update(duration_ms=SLOW_MS)
    people = {p.prolific_pid: p for p in Participant.objects.filter(study=study)}
    assert people[pid(3)].excluded and not people[pid(1)].excluded
    # the fourth is flagged by a kept review signal; the second's two wrong answers came under a floor
    # raised later
    Participant.objects.filter(pk=people[pid(4)].pk).update(review_signals={"model_like": {"evidence": "like a run"}})
    fast = Response.objects.filter(participant=people[pid(2)], is_attention_check=False).order_by("position")[:2]
    Response.objects.filter(pk__in=[r.pk for r in fast]).update(duration_ms=FLOOR_MS // 2)
    study.min_answer_ms = FLOOR_MS
    study.save(update_fields=["min_answer_ms"])
    golds = {
        r.item.key: r.item.gold for r in Response.objects.filter(participant__study=study, is_attention_check=False)
    }
    first = sorted(golds)[0]
    # a model wrong on one item, so that the gap moves with the people counted
    model_run(
        study,
        "tiny-lm",
        {"variant": "ranking", "k": 0, "shots_seed": 0, "template": 2},
        {key: FLIP[gold] if key == first else gold for key, gold in golds.items()},
    )
    return study


def _stored(study, *, people: set[int], drop_fast: bool = False) -> list[tuple[int, str, bool]]:
    """(participant, item, right) of the stored answers to real items of `people`."""
    rows = Response.objects.filter(participant_id__in=people, is_attention_check=False)
    if drop_fast:
        rows = rows.filter(duration_ms__gte=study.min_answer_ms)
    return list(rows.values_list("participant_id", "item__key", "correct"))


def _direct(answers: list[tuple[int, str, bool]], model: dict[str, float]) -> tuple[int, int, float, list, float]:
    """People, answers, mean of each person's share right, its t-interval, and the model's gap: per
    item the model's score minus the share of these people right, averaged over items."""
    by_person: dict[int, list[bool]] = {}
    by_item: dict[str, list[bool]] = {}
    for person, item, right in answers:
        by_person.setdefault(person, []).append(right)
        by_item.setdefault(item, []).append(right)
    shares = [float(np.mean(values)) for values in by_person.values()]
    ci = t_mean_ci(shares)
    gap = float(np.mean([model[item] - np.mean(values) for item, values in by_item.items()]))
    return len(by_person), len(answers), float(np.mean(shares)), [ci.low, ci.high], gap


def _model(study) -> dict[str, float]:
    from modelruns.models import ModelResponse

    return {
        key: float(right)
        for key, right in ModelResponse.objects.filter(run__study=study).values_list("item__key", "correct")
    }


def test_each_row_equals_the_figures_computed_directly_from_the_stored_answers(study):
    tree = study_results_tree(load_study_data(study), n_boot=200)
    robustness = tree.robustness
    assert robustness is not None
    assert [row.rule for row in robustness.rows] == [
        "as_analysed",
        "attention_put_back",
        "flagged_left_out",
        "fast_answers_dropped",
    ]
    ids = {p.prolific_pid: p.pk for p in Participant.objects.filter(study=study)}
    kept = {ids[pid(1)], ids[pid(2)], ids[pid(4)]}
    model = _model(study)
    expected = {
        "as_analysed": (_stored(study, people=kept), 0),
        "attention_put_back": (_stored(study, people=kept | {ids[pid(3)]}), 1),
        "flagged_left_out": (_stored(study, people=kept - {ids[pid(4)]}), 1),
        "fast_answers_dropped": (_stored(study, people=kept, drop_fast=True), 2),
    }
    for row in robustness.rows:
        answers, changed = expected[row.rule]
        people, n_answers, mean, ci, gap = _direct(answers, model)
        assert (row.n_annotators, row.n_answers, row.n_changed) == (people, n_answers, changed), row.rule
        assert row.mean == pytest.approx(mean) and row.ci95 == pytest.approx(ci), row.rule
        (run_gap,) = row.gaps
        assert run_gap.gap == pytest.approx(gap), row.rule
    # the rules move the figures (else the comparison above says little), and the first row is the headline
    assert len({row.mean for row in robustness.rows}) == 4
    analysed = robustness.rows[0]
    assert (analysed.mean, analysed.ci95, analysed.n_annotators) == (
        tree.human.accuracy.mean,
        tree.human.accuracy.ci95,
        tree.human.n_annotators,
    )
    assert analysed.gaps[0].gap == tree.models[0].gap_to_humans
    assert robustness.ci_method == tree.human.accuracy.ci_method


def test_a_rule_that_changes_nothing_is_left_out(study):
    # without the floor and with the flagged already left out by the filter, only the attention rule is left
    from results.loading.filters import ResultFilters

    study.min_answer_ms = 0
    study.save(update_fields=["min_answer_ms"])
    tree = study_results_tree(load_study_data(study), ResultFilters(flagged="exclude"), n_boot=200)
    assert [row.rule for row in tree.robustness.rows] == ["as_analysed", "attention_put_back"]
    assert tree.robustness.rows[0].n_annotators == 2


def test_a_study_where_no_rule_changes_anything_has_no_table(implicature):
    study = small_study("nothing to vary", units=1, unit_size=3, per_unit=2, attention_checks=1)
    for number in (1, 2):
        Bot(study, pid(number)).complete()
    Response.objects.filter(participant__study=study).update(duration_ms=SLOW_MS)
    tree = study_results_tree(load_study_data(study), n_boot=200)
    assert tree.robustness is None and "robustness" not in tree.to_json()


def test_the_node_adds_its_key_only_and_is_read_back(study):
    tree = study_results_tree(load_study_data(study), n_boot=200)
    data = tree.to_json()
    without = replace(tree, robustness=None).to_json()
    assert (
        list(data)
        == [*without.keys()][: list(data).index("robustness")]
        + ["robustness"]
        + [*without.keys()][list(data).index("robustness") :]
    )
    data.pop("robustness")
    assert data == without
    assert type(tree).from_json(tree.to_json()).robustness == tree.robustness


def test_the_checklist_answers_4_6_with_the_rows(study):
    from results.pipeline import study_checklist

    study.refresh_from_db()
    tree = study_results_tree(load_study_data(study), n_boot=200)
    answer = next(a for a in study_checklist(study, tree) if a.entry.id == "4.6")
    assert answer.text.startswith("Yes: human accuracy ")
    for row in tree.robustness.rows:
        label = rule_label(row, tree.robustness.answer_floor_ms)
        assert f"{100 * row.mean:.1f}% {label[0].lower() + label[1:]} ({row.n_annotators} people" in answer.text


def test_the_results_page_and_every_report_format_show_the_table(study, staff_client, tmp_path):
    from results.presenting.report import render_report
    from tests.results.presenting.test_latex_compiles import PDFLATEX, compile_latex

    html = staff_client.get(f"/studies/{study.pk}/results/").content.decode()
    assert "The headline figures under other exclusion rules" in html
    assert "With the 1 excluded for failed attention checks put back in" in html
    tree = study_results_tree(load_study_data(study), n_boot=200)
    put_back = tree.robustness.row("attention_put_back")
    markdown = render_report(tree, "markdown")
    assert (
        f"| With the 1 excluded for failed attention checks put back in | {put_back.n_annotators} | "
        f"{put_back.n_answers} | {100 * put_back.mean:.1f}% |"
    ) in markdown
    assert "Without the 2 answers under the 1000 ms answer floor" in render_report(tree, "html")
    latex = render_report(tree, "latex")
    assert "Without the 1 flagged for review" in latex
    if PDFLATEX is not None:
        compile_latex(latex, tmp_path)


def test_the_participants_excluded_by_hand_are_put_back_in_a_row_of_their_own(study, staff_client):
    from studies.participants.decisions import participants_exclude

    ids = {p.prolific_pid: p.pk for p in Participant.objects.filter(study=study)}
    participants_exclude(participant_ids=[ids[pid(1)]], reason="answered in a language test")
    tree = study_results_tree(load_study_data(study), n_boot=200)
    rules = [row.rule for row in tree.robustness.rows]
    assert rules[:3] == ["as_analysed", "attention_put_back", "hand_exclusions_put_back"]
    kept = {ids[pid(2)], ids[pid(4)]}
    model = _model(study)
    # the one excluded for failed checks stays out of this row, and the one excluded by hand out of theirs
    for rule, people_in in (
        ("attention_put_back", kept | {ids[pid(3)]}),
        ("hand_exclusions_put_back", kept | {ids[pid(1)]}),
    ):
        row = tree.robustness.row(rule)
        people, n_answers, mean, ci, gap = _direct(_stored(study, people=people_in), model)
        assert (row.n_annotators, row.n_answers, row.n_changed) == (people, n_answers, 1), rule
        assert row.mean == pytest.approx(mean) and row.ci95 == pytest.approx(ci), rule
        assert row.gaps[0].gap == pytest.approx(gap), rule
    label = rule_label(tree.robustness.row("hand_exclusions_put_back"), tree.robustness.answer_floor_ms)
    assert label == "With the 1 excluded by hand put back in"
    html = staff_client.get(f"/studies/{study.pk}/results/").content.decode()
    assert f"<td>{label}</td>" in html


def _fails_one_check_and_two_items():
    """Wrong on the first attention check only (under a threshold of two: kept) and on the first two
    real items shown."""
    checks: list[str] = []
    items = _wrong_on_first(2)

    def choose(item) -> str:
        if item.is_attention_check:
            checks.append(item.key)
            return FLIP[item.gold] if len(checks) == 1 else item.gold
        return items(item)

    return choose


def test_those_who_failed_a_check_but_stayed_in_are_left_out_in_a_row_of_their_own(implicature):
    """A careless person passes some checks by chance: the row without everyone who failed one shows how
    far the headline moves without them. Its figures equal those read from the stored answers."""
    study = small_study("one check failed", units=1, unit_size=4, per_unit=3, attention_checks=2, exclude_at=2)
    for number, choose in [(1, _fails_one_check_and_two_items()), (2, None), (3, None)]:
        Bot(study, pid(number)).complete(choose)
    Response.objects.filter(participant__study=study).update(duration_ms=SLOW_MS)
    ids = {p.prolific_pid: p.pk for p in Participant.objects.filter(study=study)}
    assert not Participant.objects.get(pk=ids[pid(1)]).excluded
    assert Response.objects.filter(participant_id=ids[pid(1)], is_attention_check=True, correct=False).count() == 1
    golds = {
        r.item.key: r.item.gold for r in Response.objects.filter(participant__study=study, is_attention_check=False)
    }
    model_run(study, "tiny-lm", {"variant": "ranking", "k": 0, "shots_seed": 0, "template": 2}, golds)

    tree = study_results_tree(load_study_data(study), n_boot=200)

    assert [row.rule for row in tree.robustness.rows] == ["as_analysed", "failed_check_left_out"]
    row = tree.robustness.row("failed_check_left_out")
    people, n_answers, mean, ci, gap = _direct(_stored(study, people={ids[pid(2)], ids[pid(3)]}), _model(study))
    assert (row.n_annotators, row.n_answers, row.n_changed) == (people, n_answers, 1) == (2, 8, 1)
    assert row.mean == pytest.approx(mean) == 1.0 and row.gaps[0].gap == pytest.approx(gap)
    assert rule_label(row, 0) == "Without the 1 who failed an attention check but stayed in"
    assert tree.robustness.rows[0].n_annotators == 3
