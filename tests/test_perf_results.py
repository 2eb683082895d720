"""`perf/results.py`'s study and its page timings, on a small size: the study is the published design
(4 units of 150 items) with every person complete and one excluded per unit, three finished runs;
the timings come from the page and the API answering as a researcher."""

from __future__ import annotations

import json

import pytest

from perf.results import build, page_timings
from results.computing.assemble import study_results
from results.loading.selectors import load_study_data
from studies.models import Study

pytestmark = pytest.mark.django_db


def test_the_study_is_the_published_design_with_runs_beside_it(implicature, capsys):
    build(name="perf small", per_unit=3)
    built = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert (built["answers"], built["people"]) == (4 * 150 * 3, 12)
    results = study_results(load_study_data(Study.objects.get(name="perf small")))
    assert results["participants"] == {"included": 8, "excluded": 4, "in_progress": 0, "imported": 0}
    assert results["human"]["n_answers"] == 8 * 150 and len(results["models"]) == 3
    assert results["human"]["cohen_kappa_mean_pairwise"] is not None


@pytest.mark.django_db(transaction=True)  # the database worker closes its connection between tasks
def test_the_page_and_the_api_are_timed_once_their_results_are_kept(implicature, capsys, settings):
    settings.RESULTS_INLINE_ANSWERS = 0  # computed in the task queue, as a large study's
    build(name="perf timed", per_unit=2)
    capsys.readouterr()
    page_timings(name="perf timed", repeat=2)
    timings = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert timings["queued"] and timings["ready_s"] >= timings["cold_s"] > 0
    assert timings["warm_ms"] > 0 and timings["api_warm_ms"] > 0
