"""The page "Import your own items" refuses a file whose prompt_template pads a field (a 98-byte
line that would make a 2 MB context): the refusal names the line and the field, nothing is
written, and the same file with a plain {text} substitution imports."""

from __future__ import annotations

import pytest

from annotation.models import Item
from tests.browser.helpers import sign_in
from tests.personas import researcher

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

LINES = (
    '{"id": "a", "text": "Is the sky blue?", "kind": "yes_no", "gold": "yes", "prompt_template": "Q: {text}"}\n'
    '{"id": "b", "text": "x", "kind": "free_text", "prompt_template": "{text:>2000000}"}\n'
)


def test_a_padding_template_is_refused_on_the_page_naming_line_and_field(live_server, page, artifacts, tmp_path):
    sign_in(page, live_server, researcher())
    upload = tmp_path / "padded.jsonl"
    upload.write_text(LINES)
    page.goto(f"{live_server.url}/studies/items/import/")
    page.fill("#id_name", "padded")
    page.set_input_files("#id_file", str(upload))
    page.click("#import-items")
    error = page.locator("#field-file .errorlist").inner_text()
    assert error.startswith("Refused, nothing was written: padded.jsonl, row 2: field 'prompt_template': ")
    assert "{text:>2000000} is not a plain substitution" in error and "write {text}" in error
    assert not Item.objects.filter(benchmark="custom").exists()
    page.screenshot(path=str(artifacts / "items-import-template-refused.png"), full_page=True)

    upload.write_text(LINES.replace("{text:>2000000}", "Summary of {text}:"))
    page.fill("#id_name", "padded")
    page.set_input_files("#id_file", str(upload))
    page.click("#import-items")
    assert page.locator("#import-counts").inner_text() == "2 created, 0 updated, 0 unchanged"
    assert Item.objects.get(key="padded/b").meta["model"]["context"] == "Summary of x:"
