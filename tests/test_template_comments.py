"""No template's comment reaches a page. Django's `{# #}` ends on its own line: one that runs onto the
next is not a comment but text, and was printed on the new-study and edit forms."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.conf import settings

from tests.factories import small_study
from tests.paths import REPO

ROOT = REPO
#: `{#` with no `#}` after it on its line: Django prints it and all up to the `#}` lines below
_UNCLOSED = re.compile(r"\{#(?!.*#\}).*$", re.M)


def _templates() -> list[Path]:
    folders = [Path(folder) for folder in settings.TEMPLATES[0]["DIRS"]]
    folders += [path for path in ROOT.glob("*/templates") if path.is_dir()]
    return sorted({file for folder in folders for file in folder.rglob("*.html")})


def test_every_comment_in_a_template_closes_on_its_own_line() -> None:
    templates = _templates()
    assert any(file.name == "study_form.html" for file in templates)
    unclosed = [
        f"{file.relative_to(ROOT)}:{file.read_text(encoding='utf-8')[: found.start()].count(chr(10)) + 1}"
        for file in templates
        for found in _UNCLOSED.finditer(file.read_text(encoding="utf-8"))
    ]
    assert not unclosed, "a {# comment #} spans lines (use {% comment %}): " + ", ".join(unclosed)


@pytest.mark.django_db
def test_the_new_study_and_edit_forms_print_no_comment(researcher_client, researcher, implicature) -> None:
    study = small_study("edited", owner=researcher, status="draft")
    for url in ("/studies/new/?benchmark=implicature", f"/studies/{study.pk}/edit/"):
        page = researcher_client.get(url)
        html = page.content.decode()
        assert page.status_code == 200 and 'id="study-form"' in html, url
        assert "{#" not in html and "#}" not in html, url
