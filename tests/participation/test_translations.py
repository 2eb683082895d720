"""Every participant-facing string goes through the translation machinery, and every shipped
catalogue translates all of them: a literal left in a participant template fails here, and so does
a catalogue with an empty, fuzzy or mangled entry."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path

import polib
import pytest
from django.conf import settings
from django.template.base import Lexer, TokenType
from django.utils.translation import to_locale

ROOT = Path(settings.BASE_DIR)
TEMPLATES = ROOT / "templates"
#: every template a participant can meet: the participant's pages and item widgets, and the site's
#: frame, problem and 404 pages they are shown in
PARTICIPANT_TEMPLATES = sorted(
    [
        *(TEMPLATES / "participation").rglob("*.html"),
        *(TEMPLATES / name for name in ("base.html", "problem.html", "404.html")),
    ]
)
#: literals allowed outside the translation tags, each for a reason
ALLOWED = {
    "Parity",  # the product's name: the default <title> of base.html, the same in every language
    "Preview finished",  # preview_end.html's <title>: the researcher's own page, English like the rest of it
}
#: attributes a person reads or a screen reader says
READ_ATTRIBUTES = {"aria-label", "placeholder", "title", "alt", "aria-description"}
HOLE = "\x00"  # stands for what the template language fills in (variables, tags, translated text)
LETTER = re.compile(r"[^\W\d_]")
LANGUAGES = [code for code, _ in settings.LANGUAGES if code != settings.LANGUAGES[0][0]]


def markup_left(source: str) -> str:
    """The template's HTML with every variable, tag and translated text replaced by `HOLE`: what is
    left of letters was written in the template and shown as it is."""
    parts, translating, commenting = [], False, False
    for token in Lexer(source).tokenize():
        if token.token_type == TokenType.BLOCK:
            name = token.contents.split()[0] if token.contents else ""
            if name in ("blocktranslate", "blocktrans", "endblocktranslate", "endblocktrans"):
                translating = not name.startswith("end")
            elif name in ("comment", "endcomment"):
                commenting = name == "comment"
            parts.append(HOLE)
        elif token.token_type == TokenType.TEXT:
            parts.append(HOLE if translating or commenting else token.contents)
        elif token.token_type == TokenType.VAR:
            parts.append(HOLE)
    return "".join(parts)


class LiteralFinder(HTMLParser):
    """Text nodes and read attributes that hold letters, outside <script>/<style> and outside an
    element marked lang="en" (English on purpose: the preview's notes for the researcher, the
    canary line that speaks to a chatbot)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.found: list[str] = []
        self.english: list[list] = []  # [tag, depth] of the lang="en" element we are in
        self.raw = False

    def check(self, text: str) -> None:
        text = " ".join(text.replace(HOLE, " ").split())
        if LETTER.search(text) and text.strip(" —–-:") not in ALLOWED and not self.english and not self.raw:
            self.found.append(text)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        if self.english and self.english[-1][0] == tag:
            self.english[-1][1] += 1
        elif values.get("lang") == "en":
            self.english.append([tag, 1])
        self.raw = tag in ("script", "style")
        for name, value in attrs:
            if name in READ_ATTRIBUTES and value:
                self.check(value)

    def handle_endtag(self, tag: str) -> None:
        self.raw = False
        if self.english and self.english[-1][0] == tag:
            self.english[-1][1] -= 1
            if not self.english[-1][1]:
                self.english.pop()

    def handle_data(self, data: str) -> None:
        self.check(data)


def literals(source: str) -> list[str]:
    finder = LiteralFinder()
    finder.feed(markup_left(source))
    finder.close()
    return finder.found


def test_the_check_finds_a_literal_in_text_and_in_attributes_and_nothing_translated():
    source = (
        '{% load i18n %}<p>{% translate "Start" %} {{ position }}</p><p>Keyboard: {{ hint }}</p>'
        '<input placeholder="Type here"><span aria-label="{% translate "Answers" %}">↵ 1 / 2</span>'
        "{% blocktranslate %}About {{ n }} minutes{% endblocktranslate %}{# a note #}"
        '<script>const text = "not shown";</script><div lang="en"><div>For the researcher</div></div>'
    )
    assert literals(source) == ["Keyboard:", "Type here"]


@pytest.mark.parametrize("template", PARTICIPANT_TEMPLATES, ids=lambda path: str(path.relative_to(TEMPLATES)))
def test_a_participant_template_holds_no_untranslated_literal(template):
    assert literals(template.read_text()) == []


# -- the catalogues ------------------------------------------------------------------------------

PLACEHOLDER = re.compile(r"%\(\w+\)[sd]|\{\w+\}|</?\w+[^>]*>")


def catalogue(code: str) -> polib.POFile:
    return polib.pofile(str(ROOT / "locale" / to_locale(code) / "LC_MESSAGES" / "django.po"))


@pytest.mark.parametrize("code", LANGUAGES)
def test_every_shipped_catalogue_translates_every_string_without_a_fuzzy_entry(code):
    po = catalogue(code)
    assert len(po) > 100
    assert [entry.msgid for entry in po.untranslated_entries()] == []
    assert [entry.msgid for entry in po.fuzzy_entries()] == []
    assert not po.metadata_is_fuzzy and po.metadata["Plural-Forms"]


@pytest.mark.parametrize("code", LANGUAGES)
def test_a_translation_keeps_its_placeholders_and_markup(code):
    """What the page fills in (`%(code)s`, `{typed}`) and the markup (`<strong>`) survive translation;
    a plural form may say "one minute" in words, so it needs only placeholders its English has."""
    for entry in catalogue(code).translated_entries():
        wanted = sorted(PLACEHOLDER.findall(entry.msgid))
        if entry.msgid_plural:
            plural = set(PLACEHOLDER.findall(entry.msgid_plural))
            for form in entry.msgstr_plural.values():
                assert set(PLACEHOLDER.findall(form)) <= plural, (entry.msgid, form)
        else:
            assert sorted(PLACEHOLDER.findall(entry.msgstr)) == wanted, (entry.msgid, entry.msgstr)


@pytest.mark.parametrize("code", LANGUAGES)
def test_every_string_a_participant_template_translates_is_in_the_catalogue(code):
    """A `{% translate "…" %}` added to a template without running scripts/messages is caught here."""
    known = {(entry.msgctxt, entry.msgid) for entry in catalogue(code)}
    literal = re.compile(r'^trans(?:late)?\s+"([^"]+)"(?:\s+context\s+"([^"]+)")?')
    missing = []
    for template in PARTICIPANT_TEMPLATES:
        for token in Lexer(template.read_text()).tokenize():
            found = literal.match(token.contents) if token.token_type == TokenType.BLOCK else None
            if found and (found.group(2), found.group(1)) not in known:
                missing.append((template.name, found.group(1)))
    assert missing == []
