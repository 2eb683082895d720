"""`study_results` and `export_results`."""

from __future__ import annotations

import json
import math
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from results.presenting.exports import FORMATS

pytestmark = pytest.mark.django_db


def _run(*args: str) -> str:
    out = StringIO()
    call_command(*args, stdout=out, stderr=StringIO())
    return out.getvalue()


def _no_nan(constant: str) -> float:
    raise AssertionError(f"{constant} in JSON output")


def _fraction(value) -> bool:
    return value is None or (isinstance(value, float | int) and 0.0 <= value <= 1.0 and not math.isnan(value))


def test_study_results_help_names_the_human_intervals_it_prints():
    """The human CI is the t-interval (the confidence sequence for a study recruited until precise),
    not a bootstrap, as the help once said."""
    from parity.stats.intervals import CI_METHOD_LABELS, CONFIDENCE_SEQUENCE, T_INTERVAL
    from results.management.commands.study_results import Command

    text = " ".join(Command().create_parser("manage.py", "study_results").format_help().split())
    assert CI_METHOD_LABELS[T_INTERVAL] in text and CI_METHOD_LABELS[CONFIDENCE_SEQUENCE].split()[0] in text
    assert "bootstrap" not in text


def test_study_results_json_is_one_object_of_the_documented_shape(pilot):
    text = _run("study_results", pilot.name, "--json")
    results = json.loads(text, parse_constant=_no_nan)
    assert text.count("\n") <= 1 and results["study"] == pilot.name and results["benchmark"] == "implicature"
    assert results["participants"]["included"] == 4 and results["participants"]["excluded"] == 1
    accuracy = results["human"]["accuracy"]
    assert all(_fraction(accuracy[key]) for key in ("mean", "best", "worst"))
    assert len(accuracy["ci95"]) == 2 and all(_fraction(v) for v in accuracy["ci95"])
    assert isinstance(results["human"]["cohen_kappa_mean_pairwise"], float)
    assert isinstance(results["human"]["krippendorff_alpha"], float)
    for unit in results["units"]:
        assert set(unit) >= {"unit", "n_annotators", "accuracy_mean", "cohen_kappa_mean_pairwise"}
        assert _fraction(unit["accuracy_mean"])
    for model in results["models"]:
        assert set(model) >= {"model", "setting", "accuracy", "kappa_vs_human_majority"}
        assert isinstance(model["setting"], dict) and _fraction(model["accuracy"])
    assert "oracle_by_position" not in results


def test_study_results_json_of_ambibench_has_the_oracle(ambi):
    results = json.loads(_run("study_results", ambi.name, "--json"), parse_constant=_no_nan)
    assert [p["position"] for p in results["oracle_by_position"]] == list(range(1, 21))
    assert all(_fraction(p["accuracy"]) for p in results["oracle_by_position"])
    # one participant per unit: no pairwise kappa, and null rather than NaN
    assert results["human"]["cohen_kappa_mean_pairwise"] is None


def test_study_results_prints_the_paper_tables_and_validates_filters(pilot):
    text = _run("study_results", pilot.name, "--unit", "U1")
    assert "| U1 | 100.0% | 80.0% |" in text and "| U2 |" not in text
    with pytest.raises(CommandError, match="--unit"):
        _run("study_results", pilot.name, "--unit", "U9")
    with pytest.raises(CommandError, match="no study named"):
        _run("study_results", "nope", "--json")


@pytest.mark.parametrize("fmt", list(FORMATS))
def test_export_results_writes_every_format_without_a_pid(pilot, tmp_path, fmt):
    target = tmp_path / f"export.{fmt}"
    call_command("export_results", pilot.name, "--format", fmt, "--out", str(target), stderr=StringIO())
    content = target.read_bytes()
    assert content
    for secret in pilot.pids:
        assert secret.encode() not in content


def test_export_results_to_stdout_and_refusals(pilot, tmp_path):
    assert _run("export_results", pilot.name, "--format", "markdown", "--out", "-").startswith("# pilot results")
    with pytest.raises(CommandError, match="binary"):
        _run("export_results", pilot.name, "--format", "parquet", "--out", "-")
    with pytest.raises(CommandError, match="does not exist"):
        _run("export_results", pilot.name, "--format", "csv", "--out", str(tmp_path / "missing" / "x.csv"))
