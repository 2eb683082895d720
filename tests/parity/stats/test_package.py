from __future__ import annotations

import json
import math
import subprocess
import sys

from parity.benchmarks.ambibench.oracle import OracleEpisode, oracle_curve
from parity.benchmarks.implicature.stats import implicature_breakdown
from parity.stats import Rating, accuracy_summary, agreement_summary, icc2k, model_vs_humans
from tests.paths import REPO

ROOT = REPO


def test_importing_the_package_does_not_load_django() -> None:
    code = "import sys, parity.stats; print('django' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "False"


def test_undefined_numbers_serialise_as_null_not_nan() -> None:
    # One annotator with constant answers: no kappa, no alpha, no CI, no sample std.
    lonely = [Rating("A", "1", "Y", True), Rating("A", "2", "Y", True)]
    results = [
        accuracy_summary(lonely, ddof=1),
        agreement_summary(lonely),
        icc2k(lonely),
        model_vs_humans(lonely, lonely),
        implicature_breakdown([]),
        oracle_curve([OracleEpisode(("a", "b"), [({"a": True, "b": False}, "X")])]),
    ]
    for result in results:
        payload = result.to_dict()
        # allow_nan=False raises on NaN or infinity anywhere in the payload.
        json.dumps(payload, allow_nan=False)
    summary = results[0].to_dict()
    assert summary["std"] is None and summary["ci_low"] is None
    assert results[1].to_dict()["mean_pairwise_kappa"] is None
    assert not any(isinstance(v, float) and math.isnan(v) for v in summary.values())


def test_to_dict_keeps_nested_rows_and_stringifies_keys() -> None:
    breakdown = implicature_breakdown([{"item": "i", "template": 1, "correct": True}]).to_dict()
    assert breakdown["per_template"] == {"1": 1.0}
    assert breakdown["per_type"][0]["implicature_type"] == "Other"
