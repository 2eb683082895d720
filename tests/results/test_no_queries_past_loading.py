"""Every read of the database is in `results.loading`: once a study's data is loaded, the computing and
the presenting of its results, its monitor, its exports and its checklist run no query. The study asks
closing questions the results summarise and an explanation at the end, a participant failed its
attention checks, and a model run sits beside the people, so that every part of the results that
reads a record beyond the answers is computed."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from parity.reporting.checklist import ENTRIES
from results.computing.assemble import study_results_tree
from results.computing.checklist import study_checklist
from results.computing.demographics import summarised
from results.computing.monitor import monitor_of
from results.loading.exports import load_export_records
from results.loading.filters import ResultFilters
from results.loading.monitor import load_monitor_data
from results.loading.selectors import load_checklist_records, load_results_records, load_study_data
from results.pipeline import results_compute
from results.presenting.charts import arrivals_chart, study_charts
from results.presenting.display import among_people_rows, summary_cards
from results.presenting.exports import FORMATS, export_study
from results.presenting.tables import paper_tables
from tests.factories import Bot, pid, small_study
from tests.paths import REPO
from tests.results.conftest import FLIP, model_run

pytestmark = pytest.mark.django_db

RESULTS = REPO / "results"


@pytest.fixture
def study(implicature):
    from annotation.models import Item

    study = small_study(
        "no queries", units=1, unit_size=4, per_unit=3, attention_checks=1, exclude_at=1, explanations="end"
    )
    study.closing_questions = ["age", "gender", "ai_tool", "feedback"]
    study.save(update_fields=["closing_questions"])
    for number, ai_tool in ((1, "most"), (2, "no")):
        bot = Bot(study, pid(number))
        bot.complete()
        closing = {"age": str(30 + number), "gender": "woman", "ai_tool": ai_tool, "explanation": "first reading"}
        assert bot.client.post(f"/s/{study.link}/closing/", closing).status_code == 302
    # wrong on the attention check: excluded by the study's rule
    Bot(study, pid(3)).complete(lambda item: FLIP[item.gold] if item.is_attention_check else item.gold)
    golds = dict(Item.objects.filter(unititem__unit__study=study).values_list("key", "gold"))
    model_run(study, "tiny-lm", {"template": 1}, golds)
    return study


def _queries(step) -> list[str]:
    with CaptureQueriesContext(connection) as captured:
        step()
    return [query["sql"] for query in captured.captured_queries]


@pytest.mark.parametrize("flagged", ["include", "exclude"])
def test_the_results_are_computed_and_presented_without_a_query(study, flagged):
    data = load_study_data(study)
    load_results_records(data, closing=summarised(study))
    filters = ResultFilters(flagged=flagged)

    def compute_and_present() -> None:
        results = study_results_tree(data, filters, n_boot=50)
        assert results.closing is not None and results.methods.explanations is not None
        study_charts(results)
        paper_tables(results)
        summary_cards(results)
        among_people_rows(results)
        results.to_json()

    assert _queries(compute_and_present) == []


def test_the_checklist_is_answered_without_a_query(study):
    results = results_compute(load_study_data(study), n_boot=50)
    records = load_checklist_records(study)
    answers: list = []
    assert _queries(lambda: answers.extend(study_checklist(study, results, records))) == []
    assert len(answers) == len(ENTRIES)


def test_the_monitor_is_computed_and_drawn_without_a_query(study):
    data = load_monitor_data(study)

    def compute_and_present() -> None:
        monitor = monitor_of(data, now=timezone.now())
        assert monitor.counts.arrivals == 3
        arrivals_chart(monitor.timeline)

    assert _queries(compute_and_present) == []


@pytest.mark.parametrize("fmt", list(FORMATS))
def test_each_export_is_written_without_a_query(study, fmt):
    data = load_study_data(study)
    results = results_compute(data, n_boot=50) if fmt in {"latex", "markdown"} else None
    records = load_export_records(data, fmt)
    written: list = []
    assert _queries(lambda: written.append(export_study(data, fmt, records=records, results=results))) == []
    assert written[0].content


def _imports(path: Path) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module:
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return found


#: names the computing and the presenting may import from a models module: enumerations and constants
#: (a status, a step, a source), never a manager to query
MODEL_NAMES_ALLOWED = {
    "studies.models.Participant",  # its Status and Step
    "studies.models.Study",  # a type, and its Explanations
    "modelruns.models.ModelRun",  # its Status
    "modelruns.models.LM_EVAL_SOURCE",
    "modelruns.models.INSPECT_SOURCE",
}


def test_the_computing_and_the_presenting_import_no_query_and_no_selector():
    """An import-level guard beside the counts above: no selector, no service (a write), no
    `django.db`, and from a models module only the classes whose enumerations they read."""
    wrong = []
    for package in ("computing", "presenting"):
        for path in sorted((RESULTS / package).rglob("*.py")):
            for name in sorted(_imports(path)):
                module = name.rsplit(".", 1)[0]
                if (
                    "selectors" in name
                    or name.startswith("django.db")
                    or (module.endswith(".models") and name not in MODEL_NAMES_ALLOWED)
                ):
                    wrong.append(f"{path.relative_to(RESULTS.parent)}: {name}")
    assert wrong == []
