"""Exports: long, wide, JSONL, parquet and the paper tables; pseudonymous, never a Prolific id."""

from __future__ import annotations

import csv
import io
import json

import pyarrow.parquet as pq
import pytest

from results.loading.selectors import load_study_data
from results.pipeline import data_export
from results.presenting.exports import FORMATS, LONG_COLUMNS
from studies.models import Study
from tests.factories import row_key

pytestmark = pytest.mark.django_db


def _text(fmt: str, content: bytes) -> str:
    if fmt == "parquet":
        return pq.read_table(io.BytesIO(content)).to_pandas().to_csv()
    return content.decode("utf-8")


def _rows(content: bytes) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(content.decode("utf-8"))))


@pytest.mark.parametrize("fmt", list(FORMATS))
@pytest.mark.parametrize("free_text", [False, True])
def test_no_export_holds_a_prolific_or_session_id(pilot, ambi, fmt, free_text):
    for built in (pilot, ambi):
        exported = data_export(load_study_data(Study.objects.get(pk=built.study_id)), fmt, include_free_text=free_text)
        text = _text(fmt, exported.content)
        assert text.strip()
        for secret in [*built.pids, *built.sessions, "STUDY0001"]:
            assert secret not in text


def test_the_long_csv_has_one_row_per_annotator_and_item_with_flags(pilot):
    exported = data_export(load_study_data(Study.objects.get(pk=pilot.study_id)), "csv")
    assert exported.filename == "pilot-results-long.csv" and exported.content_type.startswith("text/csv")
    rows = _rows(exported.content)
    assert list(rows[0]) == list(LONG_COLUMNS)
    assert len(rows) == 5 * 7  # five participants × (5 items + 2 attention checks)
    excluded = [r for r in rows if r["excluded"] == "true"]
    assert {r["annotator"] for r in excluded} == {"A3"} and len(excluded) == 7
    checks = [r for r in rows if r["is_attention_check"] == "true"]
    assert len(checks) == 10 and {r["answer"] for r in checks if r["annotator"] == "A3"} == {"no"}
    a4 = {r["item_key"]: r for r in rows if r["annotator"] == "A4" and r["is_attention_check"] == "false"}
    assert a4[row_key(2)]["answer"] == "yes" and a4[row_key(2)]["correct"] == "false"
    assert a4[row_key(1)]["raw_answer"] == "no" and a4[row_key(1)]["gold"] == "no"
    assert sorted(int(r["position"]) for r in rows if r["annotator"] == "A4") == list(range(1, 8))
    assert all(int(r["response_time_ms"]) >= 0 for r in rows)


def test_the_wide_csv_has_one_column_per_annotator(pilot):
    exported = data_export(load_study_data(Study.objects.get(pk=pilot.study_id)), "wide-csv")
    rows = _rows(exported.content)
    assert list(rows[0])[-5:] == ["A1", "A2", "A3 (excluded)", "A4", "A5"]
    items = [r for r in rows if r["is_attention_check"] == "false"]
    assert [r["item_key"] for r in items] == [row_key(n) for n in range(1, 11)]
    first = items[0]
    assert (first["A1"], first["A4"], first["A2"]) == ("no", "no", "")
    assert items[5]["A5"] == "yes" and items[5]["unit"] == "U2"


def test_free_text_is_withheld_unless_asked_for(ambi):
    data = load_study_data(Study.objects.get(pk=ambi.study_id))
    rows = _rows(data_export(data, "csv").content)
    first = [r for r in rows if r["position"] == "1"]
    invalid = next(r for r in first if r["valid"] == "false")
    assert (invalid["answer"], invalid["raw_answer"], invalid["free_text_withheld"]) == ("", "", "true")
    typed = next(r for r in first if r["valid"] == "true")
    assert typed["raw_answer"] in {"x", "y"} and typed["answer"] == typed["raw_answer"].upper()
    assert typed["free_text_withheld"] == "false"
    assert "maybe" not in data_export(data, "jsonl").content.decode()
    everything = _rows(data_export(data, "csv", include_free_text=True).content)
    assert "maybe" in {r["raw_answer"] for r in everything}


def test_jsonl_and_parquet_carry_the_long_rows_with_types(pilot):
    data = load_study_data(Study.objects.get(pk=pilot.study_id))
    lines = data_export(data, "jsonl").content.decode().splitlines()
    first = json.loads(lines[0])
    assert len(lines) == 35 and set(first) == set(LONG_COLUMNS) and isinstance(first["correct"], bool)
    table = pq.read_table(io.BytesIO(data_export(data, "parquet").content))
    assert table.num_rows == 35 and table.column_names == list(LONG_COLUMNS)
    assert str(table.schema.field("correct").type) == "bool"


def test_the_paper_tables_in_latex_and_markdown(pilot):
    data = load_study_data(Study.objects.get(pk=pilot.study_id))
    markdown = data_export(data, "markdown").content.decode()
    # brackets escaped: a cell is never read as a link
    assert "| U1 | 100.0% | 80.0% | 90.0% | \\[0.0, 100.0\\] | 100.0% | 80.0% | 0.55 |" in markdown
    assert "| tiny-lm | template 2, k=0 | 10 | 90.0% |" in markdown
    latex = data_export(data, "latex").content.decode()
    assert r"\begin{tabular}" in latex and r"\toprule" in latex and "85.0\\%" in latex
    assert "%" not in latex.replace("\\%", "").split("\n", 1)[1]  # every other percent sign escaped


def test_the_markdown_table_shows_html_and_links_in_names_as_text(pilot):
    """A unit's label and a study's name are written by people; rendered where Markdown becomes
    HTML (a README, a wiki), the table shows them and runs nothing."""
    from markdown_it import MarkdownIt

    from studies.models import Unit

    study = Study.objects.get(pk=pilot.study_id)
    Study.objects.filter(pk=study.pk).update(name="<script>alert(1)</script> pilot")
    unit = Unit.objects.filter(study=study).order_by("position").first()
    Unit.objects.filter(pk=unit.pk).update(label="<img src=x onerror=alert(2)> ![](https://t.example/p.png) a|b")
    markdown = data_export(load_study_data(Study.objects.get(pk=study.pk)), "markdown").content.decode()
    assert markdown.startswith("# \\<script\\>alert(1)\\</script\\> pilot (")
    assert "| \\<img src=x onerror=alert(2)\\> !\\[\\](https://t.example/p.png) a\\|b | 100.0% |" in markdown
    html = MarkdownIt("commonmark").render(markdown)  # raw HTML on, as many renderers have it
    assert "<script" not in html and "<img" not in html and "&lt;script&gt;alert(1)&lt;/script&gt;" in html
