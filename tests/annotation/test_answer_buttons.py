"""The answer buttons of the item partials: each button's shortcuts and the keyboard line under them."""

from __future__ import annotations

import re

from django.template.loader import render_to_string

from parity.benchmarks import get
from parity.benchmarks.base import Choice, keyboard_hint
from parity.benchmarks.custom.benchmark import choices_for


def _hint(html: str) -> str | None:
    found = re.search(r'<p class="hint keys-hint">Keyboard: ([^<]*)</p>', html)
    return found.group(1) if found else None


def test_a_choice_gives_its_buttons_shortcuts_as_strings():
    choice = Choice("yes", "Yes", ("y", "1"))
    assert (choice.keys_attr, choice.shortcut, choice.aria_keyshortcuts) == ("y,1", "Y", "Y 1")
    assert (Choice("10", "ten", ()).keys_attr, Choice("10", "ten", ()).shortcut) == ("", "")


def test_the_keyboard_line_names_each_choice_with_shortcuts_and_only_those():
    choices = [Choice("yes", "Yes", ("y", "1")), Choice("no", "No", ("n", "2")), Choice("x", "Later", ())]
    assert keyboard_hint(choices) == "Y / 1 = Yes; N / 2 = No"
    assert keyboard_hint([]) == ""


def test_the_binary_partial_shows_each_buttons_keys_and_the_keyboard_line():
    choices = get("implicature").choices({"utterance": "Is it?", "response": "Yes."}, {})
    html = render_to_string(
        "participation/partials/_item_binary.html",
        {"shown": {"text": "A & B", "question": "Yes or no?"}, "choices": choices},
    )
    assert re.findall(
        r'value="(\w+)" class="choice" data-keys="([^"]+)" aria-keyshortcuts="([^"]+)">\s*(\w+) <kbd>(\w)</kbd>', html
    ) == [
        ("yes", "y,1", "Y 1", "Yes", "Y"),
        ("no", "n,2", "N 2", "No", "N"),
    ]
    assert _hint(html) == "Y / 1 = Yes; N / 2 = No"
    assert "A &amp; B" in html


def test_options_past_the_ninth_have_no_shortcut_and_the_keyboard_line_ends_with_the_ninth():
    options = [f"option {number} <b>" for number in range(1, 12)]
    html = render_to_string(
        "participation/partials/_item_custom.html",
        {
            "shown": {"kind": "choice", "text": "Pick one"},
            "choices": choices_for({"kind": "choice", "options": options}),
        },
    )
    assert re.findall(r'data-keys="([^"]+)"', html) == [str(number) for number in range(1, 10)]
    assert html.count("<kbd>") == 9
    assert _hint(html) == "; ".join(f"{number} = option {number} &lt;b&gt;" for number in range(1, 10))


def test_a_free_text_item_has_no_keyboard_line():
    html = render_to_string(
        "participation/partials/_item_custom.html",
        {"shown": {"kind": "free_text", "text": "Say", "long": True}, "choices": []},
    )
    assert "Keyboard:" not in html
