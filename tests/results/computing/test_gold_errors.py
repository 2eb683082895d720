"""Possible gold errors (`results.computing.gold_errors`) in Ruis et al.'s published human evaluation,
imported: the items every annotator who answered them answered against the gold, with the count of
people and their answers, and the headline with and without them. The expected list and figures are
computed here from the published files themselves (each subset's five annotators' labels against
the gold), never from Parity's tables."""

from __future__ import annotations

import csv
from collections import Counter
from io import StringIO

import pytest
from django.core.management import call_command

from parity.benchmarks.implicature.parsing import item_key
from results.computing.assemble import study_results_tree
from results.computing.gold_errors import MIN_PEOPLE
from results.computing.robustness import rule_label
from results.loading.selectors import load_study_data
from results.presenting.report.render import render_report
from results.presenting.tables import paper_tables
from tests.paths import REPO
from tests.results.conftest import BASELINE_NAME, model_run

pytestmark = pytest.mark.django_db

ANNOTATORS = [f"Annotator {k}" for k in range(1, 6)]


def _published(source) -> tuple[dict[str, tuple[str, Counter]], list[float], list[float], list[float]]:
    """From the published files: the items every annotator answered against the gold (key -> gold and
    their answers), each of the 20 annotators' share right with and without those items, and each
    other item's share of its five annotators right (what a gap on the items is over)."""
    errors: dict[str, tuple[str, Counter]] = {}
    subsets = []
    for path in sorted(source.glob("human_eval_*.csv")):
        with path.open(encoding="utf-8", newline="") as handle:
            rows = list(csv.DictReader(handle))
        subsets.append(rows)
        for row in rows:
            gold = row["Ground truth"].strip().lower()
            answers = [row[column].strip().lower() for column in ANNOTATORS]
            if all(answer != gold for answer in answers):
                errors[item_key("test", row["Utterance"], row["Response"])] = (gold, Counter(answers))
    with_all, without = [], []
    item_rates = [
        sum(row[column].strip().lower() == row["Ground truth"].strip().lower() for column in ANNOTATORS) / 5
        for rows in subsets
        for row in rows
        if item_key("test", row["Utterance"], row["Response"]) not in errors
    ]
    for rows in subsets:
        for column in ANNOTATORS:
            right = [
                (
                    row[column].strip().lower() == row["Ground truth"].strip().lower(),
                    item_key("test", row["Utterance"], row["Response"]) in errors,
                )
                for row in rows
            ]
            with_all.append(sum(ok for ok, _ in right) / len(right))
            kept = [ok for ok, doubtful in right if not doubtful]
            without.append(sum(kept) / len(kept))
    return errors, with_all, without, item_rates


def _results(baseline):
    from studies.models import Study

    return study_results_tree(load_study_data(Study.objects.get(pk=baseline.study_id)))


@pytest.fixture(scope="module")
def expected(implicature_source):
    return _published(implicature_source)


@pytest.fixture(scope="module")
def gold_run(baseline):
    """A model that gives the gold answer to every item: its accuracy without the possible gold errors
    stays 100%, and its gap moves by exactly what the people's accuracy moves."""
    from annotation.models import Item
    from studies.models import Study

    study = Study.objects.get(pk=baseline.study_id)
    golds = dict(Item.objects.filter(unititem__unit__study=study).values_list("key", "gold"))
    return model_run(study, "tiny-lm", {"variant": "ranking", "k": 0, "shots_seed": 0, "template": 1}, golds)


def test_the_published_study_lists_every_item_all_annotators_answered_against_the_gold(baseline, expected) -> None:
    errors, *_ = expected
    results = _results(baseline)
    found = results.possible_gold_errors
    assert found is not None
    assert {error.item: (error.gold, error.n_people, error.answers) for error in found} == {
        key: (gold, sum(answers.values()), dict(answers)) for key, (gold, answers) in errors.items()
    }
    busy = next(error for error in found if error.text.startswith("Are you busy?"))
    assert (busy.gold, busy.n_people, busy.answers) == ("no", 5, {"yes": 5})
    assert all(error.n_people >= MIN_PEOPLE for error in found)


def test_the_headline_with_and_without_the_possible_gold_errors(baseline, expected, gold_run) -> None:
    errors, with_all, without, item_rates = expected
    results = _results(baseline)
    assert results.robustness is not None
    analysed = results.robustness.row("as_analysed")
    dropped = results.robustness.row("gold_errors_dropped")
    assert analysed is not None and dropped is not None
    assert dropped.n_changed == len(errors)
    assert analysed.mean == pytest.approx(sum(with_all) / len(with_all))
    assert dropped.mean == pytest.approx(sum(without) / len(without))
    assert dropped.n_answers == analysed.n_answers - 5 * len(errors)
    (gap_all,) = analysed.gaps
    (gap_without,) = dropped.gaps
    assert gap_all.model_mean == 1.0 and gap_without.model_mean == 1.0
    assert gap_all.gap == pytest.approx(1.0 - sum(with_all) / len(with_all))
    assert gap_without.gap == pytest.approx(1.0 - sum(item_rates) / len(item_rates))
    assert gap_without.n_items == 600 - len(errors)
    docs = (REPO / "docs" / "results.md").read_text(encoding="utf-8")
    assert f"{len(errors)} of the\n600 items" in docs
    assert f"{100 * analysed.mean:.1f}% with them and {100 * dropped.mean:.1f}%" in docs


def test_the_list_and_the_figures_reach_the_page_json_and_reports(baseline, expected, gold_run, staff_client) -> None:
    errors, with_all, without, item_rates = expected
    results = _results(baseline)
    (table,) = [table for table in paper_tables(results) if table.key == "possible_gold_errors"]
    assert len(table.rows) == len(errors)
    busy = next(row for row in table.rows if row[0].startswith("Are you busy?"))
    assert busy[1:] == ["no", "5", "yes (5)"]
    assert f"human accuracy {100 * sum(without) / len(without):.1f}%" in table.notes[1]
    assert f"human accuracy {100 * sum(with_all) / len(with_all):.1f}%" in table.notes[1]

    out = StringIO()
    call_command("study_results", BASELINE_NAME, "--json", stdout=out)
    assert '"possible_gold_errors"' in out.getvalue()
    assert out.getvalue().count('"n_people": 5') == len(errors)

    dropped = results.robustness.row("gold_errors_dropped")
    label = rule_label(dropped, 0)
    for fmt in ("html", "markdown", "latex"):
        text = render_report(results, fmt)
        assert "Possible gold errors" in text, fmt
        assert "drowning in work" in text, fmt
    page = staff_client.get(f"/studies/{baseline.study_id}/results/")
    assert "Possible gold errors" in page.content.decode()
    assert label.startswith(f"Without the {len(errors)} possible gold errors")
