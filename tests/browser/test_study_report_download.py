"""The results page's Report button in a browser: the chosen format downloads, and the HTML report
shows its methods paragraphs, results and tables (saved as `test-artifacts/report-html.png`)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.browser.helpers import sign_in
from tests.factories import Bot, pid, small_study
from tests.personas import researcher
from tests.results.conftest import model_run

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_the_report_downloads_in_the_chosen_format(live_server, page, implicature_source, artifacts: Path):
    from annotation.models import Item
    from annotation.services import benchmark_import

    benchmark_import(name="implicature", source=implicature_source)
    owner = researcher()
    study = small_study("report in a browser", units=2, unit_size=5, per_unit=2, attention_checks=1, owner=owner)
    for n in range(4):
        Bot(study, pid(0x500 + n)).complete()
    golds = dict(Item.objects.filter(units__study=study, is_attention_check=False).values_list("key", "gold"))
    model_run(study, "smollm2", {"variant": "ranking", "k": 0, "shots_seed": 0, "template": 2}, golds)
    sign_in(page, live_server, owner)
    page.goto(f"{live_server.url}/studies/{study.pk}/results/")

    for fmt, suffix in (("latex", "tex"), ("html", "html")):
        page.select_option("#report-format", fmt)
        with page.expect_download() as info:
            page.click("#report-download")
        download = info.value
        assert download.suggested_filename == f"report-in-a-browser-report.{suffix}"
        saved = artifacts / download.suggested_filename
        download.save_as(saved)
    assert saved.read_text().startswith("<!DOCTYPE html>")
    assert (artifacts / "report-in-a-browser-report.tex").read_text().rstrip().endswith("\\end{document}")

    page.goto(saved.as_uri())
    assert page.locator("#methods p").count() == 3
    assert "Participants answered on Parity through the study's link" in page.locator("#methods").inner_text()
    assert page.locator("#table-comparison tbody tr").count() == 1
    page.screenshot(path=str(artifacts / "report-html.png"), full_page=False)
