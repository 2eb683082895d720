"""`import_annotations implicature`: Ruis et al.'s published human evaluation as a closed study,
checked against the paper's Table 7 (Appendix E)."""

from __future__ import annotations

import csv
import shutil
import statistics
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from parity.benchmarks.implicature.published import SUBSETS as IMPLICATURE_SUBSETS
from results.computing.assemble import study_results_tree
from results.computing.tree import StudyResults
from results.loading.selectors import load_study_data
from results.presenting.tables import paper_tables
from studies.models import Participant, Response, Study
from tests.results.conftest import BASELINE_NAME

pytestmark = pytest.mark.django_db

# Table 7: per-annotator accuracy (%), mean, best, worst and IAA per subset. The paper truncates
# (136/150 = 90.67% is printed 90.6%), so values may sit one printed unit away.
TABLE_7 = {
    "1-150": ([86.0, 92.0, 90.7, 90.6, 86.0], 89.1, 92.0, 86.0, 0.73),
    "151-300": ([84.7, 83.3, 87.3, 86.0, 86.0], 85.5, 87.3, 83.3, 0.64),
    "301-450": ([84.0, 85.3, 88.0, 86.0, 82.7], 85.2, 88.0, 82.7, 0.78),
    "451-600": ([85.3, 82.7, 84.0, 82.0, 92.0], 85.2, 92.0, 82.0, 0.71),
}


def _copy(source: Path, target: Path) -> Path:
    target.mkdir()
    for subset in IMPLICATURE_SUBSETS:
        shutil.copy(source / f"human_eval_{subset}.csv", target / f"human_eval_{subset}.csv")
    return target


def test_it_makes_a_closed_study_of_20_imported_annotators_and_3000_answers(baseline):
    study = Study.objects.get(pk=baseline.study_id)
    assert study.status == Study.Status.CLOSED and study.is_imported and study.benchmark == "implicature"
    assert [(u.label, u.capacity, u.unit_items.count()) for u in study.units.order_by("position")] == [
        (label, 5, 150) for label in IMPLICATURE_SUBSETS
    ]
    participants = Participant.objects.filter(study=study).order_by("pk")
    assert [p.pseudonym for p in participants] == [f"A{n}" for n in range(1, 21)]
    assert participants[0].prolific_pid == "imported-s1-a1" and participants[19].prolific_pid == "imported-s4-a5"
    assert all(p.is_imported and p.status == Participant.Status.COMPLETED and p.answered == 150 for p in participants)
    responses = Response.objects.filter(participant__study=study)
    assert responses.count() == 4 * 5 * 150
    first = responses.select_related("item").get(participant=participants[0], position=1)
    assert first.item.meta["row"] == 1 and first.duration_ms == 0 and first.shown_at == first.answered_at
    last = responses.select_related("item").get(participant=participants[19], position=150)
    assert last.item.meta["row"] == 600 and last.extra["source_file"] == "human_eval_451-600.csv"


def test_the_numbers_reproduce_table_7(baseline):
    results = study_results_tree(load_study_data(Study.objects.get(pk=baseline.study_id))).to_json()
    for unit in results["units"]:
        annotators, mean, best, worst, kappa = TABLE_7[unit["unit"]]
        assert [a["accuracy"] for a in unit["annotators"]] == pytest.approx([a / 100 for a in annotators], abs=0.001)
        assert unit["accuracy_mean"] == pytest.approx(mean / 100, abs=0.001)
        assert (unit["accuracy_best"], unit["accuracy_worst"]) == pytest.approx((best / 100, worst / 100), abs=0.001)
        assert unit["cohen_kappa_mean_pairwise"] == pytest.approx(kappa, abs=0.01)
    across = results["human"]["accuracy_across_units"]
    assert (across["mean"], across["best"], across["worst"]) == pytest.approx((0.862, 0.898, 0.835), abs=0.001)
    assert across["mean_within_unit_std"] == pytest.approx(0.023, abs=0.001)
    assert results["human"]["cohen_kappa_mean_pairwise"] == pytest.approx(0.72, abs=0.01)
    assert results["participants"]["included"] == 20 and results["participants"]["imported"] == 20


def test_five_annotators_per_subset_get_a_t_interval_with_a_warning_and_the_means_stay(baseline):
    """The CI of each subset's mean is Student's t over its 5 annotators (t(0.975, 4) = 2.776), not a
    bootstrap; the pooled 20 annotators need no warning. Table 7's means are as above."""
    results = study_results_tree(load_study_data(Study.objects.get(pk=baseline.study_id))).to_json()
    for unit in results["units"]:
        accuracies = [a["accuracy"] for a in unit["annotators"]]
        mean = sum(accuracies) / 5
        half = 2.776 * statistics.stdev(accuracies) / 5**0.5
        assert unit["accuracy_mean"] == pytest.approx(TABLE_7[unit["unit"]][1] / 100, abs=0.001)
        assert unit["accuracy_ci95"] == pytest.approx([mean - half, mean + half], abs=1e-4)
        assert unit["accuracy_ci_method"] == "t_interval" and unit["small_n_warning"] is True
    human = results["human"]
    assert human["n_annotators"] == 20 and human["accuracy"]["small_n_warning"] is False
    assert human["accuracy"]["ci_method"] == "t_interval"
    # the Total row's 86.2% does not move
    assert human["accuracy_across_units"]["mean"] == pytest.approx(0.862, abs=0.001)
    (units,) = [table for table in paper_tables(StudyResults.from_json(results)) if table.key == "units"]
    assert "Mean 95% CI" in units.columns
    assert any("Student's t-interval over annotators" in note for note in units.notes)
    assert any(
        note.startswith("Units with fewer than 10 annotators: 4 of 4 (5 annotators at the fewest).")
        for note in units.notes
    )


def test_importing_the_same_name_again_writes_nothing(baseline, implicature_source):
    before = Response.objects.count()
    out = _call("--source", str(implicature_source), "--name", BASELINE_NAME)
    assert "already imported" in out and "nothing was written" in out
    assert Response.objects.count() == before and Study.objects.filter(name=BASELINE_NAME).count() == 1


def test_a_name_taken_by_another_study_is_refused(baseline, implicature_source):
    from tests.factories import small_study

    small_study("taken")
    with pytest.raises(CommandError, match="already exists and is not this import"):
        _call("--source", str(implicature_source), "--name", "taken")


def _call(*args: str) -> str:
    from io import StringIO

    out = StringIO()
    call_command("import_annotations", "implicature", *args, stdout=out)
    return out.getvalue()


def _edit(path: Path, row: int, column: str, old: str, new: str) -> None:
    """Change `old` in `column` of spreadsheet row `row` (the header is row 1)."""
    with path.open(newline="", encoding="utf-8") as handle:
        rows = list(csv.reader(handle))
    index = rows[0].index(column)
    assert old in rows[row - 1][index]
    rows[row - 1][index] = rows[row - 1][index].replace(old, new, 1)
    with path.open("w", newline="", encoding="utf-8") as handle:
        csv.writer(handle).writerows(rows)


@pytest.mark.parametrize(
    ("file", "row", "column", "old", "new", "message"),
    [
        # row 40 comes after quoted fields that span lines: rows are counted as a spreadsheet does
        (
            "human_eval_301-450.csv",
            40,
            "Annotator 3",
            "No",
            "Maybe",
            r"human_eval_301-450.csv, row 40: Annotator 3 is 'Maybe'",
        ),
        (
            "human_eval_151-300.csv",
            4,
            "Utterance",
            "?",
            "??",
            r"human_eval_151-300.csv, row 4: no imported test item has this utterance and response",
        ),
    ],
)
def test_a_broken_copy_is_refused_naming_file_and_row_and_nothing_is_written(
    baseline, implicature_source, tmp_path, file, row, column, old, new, message
):
    broken = _copy(implicature_source, tmp_path / "broken")
    _edit(broken / file, row, column, old, new)
    studies, responses = Study.objects.count(), Response.objects.count()
    with pytest.raises(CommandError, match=message):
        _call("--source", str(broken), "--name", "broken copy")
    assert (Study.objects.count(), Response.objects.count()) == (studies, responses)


def test_a_truncated_file_is_refused(baseline, implicature_source, tmp_path):
    broken = _copy(implicature_source, tmp_path / "short")
    path = broken / "human_eval_451-600.csv"
    with path.open(newline="", encoding="utf-8") as handle:
        rows = list(csv.reader(handle))
    with path.open("w", newline="", encoding="utf-8") as handle:
        csv.writer(handle).writerows(rows[:100])
    with pytest.raises(CommandError, match=r"human_eval_451-600.csv: expected 150 rows, found 99 \(truncated\?\)"):
        _call("--source", str(broken), "--name", "short copy")
    path.write_text(path.read_text(encoding="utf-8")[:5000], encoding="utf-8")  # cut inside a row
    with pytest.raises(CommandError, match=r"human_eval_451-600.csv, row \d+: (malformed CSV|expected at least 8)"):
        _call("--source", str(broken), "--name", "short copy")
    assert not Study.objects.filter(name="short copy").exists()


def test_a_dry_run_checks_and_writes_nothing(baseline, implicature_source):
    out = _call("--source", str(implicature_source), "--name", "dry", "--dry-run")
    assert "3000 answers would be imported" in out and not Study.objects.filter(name="dry").exists()
