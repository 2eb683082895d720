"""Consent and instruction texts: Markdown, with no raw HTML or script reaching the page."""

from __future__ import annotations

import pytest

from studies.design.markdown import render_markdown
from studies.models import Study
from tests.factories import Bot, pid, small_study

HOSTILE = (
    "**Read** this.\nSecond line\n\n- one\n- two\n\n<script>alert(1)</script> <img src=x onerror=alert(2)>\n\n"
    "[click](javascript:alert(3)) [ok](https://example.org)"
)


def test_markdown_is_rendered_and_html_is_shown_as_text():
    html = render_markdown(HOSTILE)
    assert "<strong>Read</strong> this.<br>\nSecond line" in html and "<li>one</li>" in html
    assert "<script" not in html and "<img" not in html and "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert 'href="javascript:' not in html and '<a href="https://example.org">ok</a>' in html


@pytest.mark.django_db
def test_the_participant_and_the_preview_pages_render_the_same_safe_text(implicature, researcher_client, researcher):
    study = small_study("markdown", units=1, unit_size=2, attention_checks=0, exclude_at=0, owner=researcher)
    Study.objects.filter(pk=study.pk).update(consent_text=HOSTILE, instructions_text="*Instructions* <b>bold</b>")
    bot = Bot(study, pid(5))
    consent = bot.enter().content.decode()
    instructions = bot.post("consent", {"agree": "yes"}).content.decode()
    preview = researcher_client.get(f"/studies/{study.pk}/preview/").content.decode()
    for page in (consent, preview):
        assert render_markdown(HOSTILE) in page and "<script>alert" not in page
    assert "<em>Instructions</em> &lt;b&gt;bold&lt;/b&gt;" in instructions


@pytest.mark.parametrize(
    "source",
    [
        "https://images.example.org/a.png",
        "http://images.example.org/a.png",
        "//images.example.org/a.png",
        "HTTPS://images.example.org/a.png",
        "data:image/png;base64,iVBORw0KGgo=",
    ],
)
def test_an_image_from_another_host_is_shown_as_its_alt_text(source):
    html = render_markdown(f'Look: ![a *chart* <of> it]({source} "title")')
    assert "<img" not in html and "images.example.org" not in html
    assert '<span class="remote-image">a chart &lt;of&gt; it</span>' in html


def test_an_image_from_this_site_stays():
    html = render_markdown("![logo](/static/favicon.svg) ![chart](img/chart.png) ![odd](/\\host.example/a.png)")
    assert '<img src="/static/favicon.svg" alt="logo">' in html and '<img src="img/chart.png" alt="chart">' in html
    # a backslash is percent-encoded: a path on this site, not the host //host.example
    assert '<img src="/%5Chost.example/a.png" alt="odd">' in html


@pytest.mark.django_db
def test_the_consent_page_carries_no_remote_image(implicature):
    study = small_study("remote image", units=1, unit_size=2, attention_checks=0, exclude_at=0)
    Study.objects.filter(pk=study.pk).update(
        consent_text="![x](https://tracker.example/p.png) ![y](/static/favicon.svg)"
    )
    consent = Bot(study, pid(6)).enter().content.decode()
    assert "tracker.example" not in consent and '<img src="/static/favicon.svg" alt="y">' in consent
