"""The pure integrity rules: a behaviour record checked against the server's time, the reading
floor, the canary word and its match."""

from __future__ import annotations

import re

from parity.stats import behaviour

FIGURES = {"pastes": 1, "blurs": 2, "hidden": 1, "hidden_ms": 4000, "keys": 12, "first_input_ms": 900}


def test_a_record_within_the_items_time_is_kept_whole():
    assert behaviour.checked(FIGURES, duration_ms=5000) == {"status": "recorded", **FIGURES}
    assert behaviour.checked({**FIGURES, "keys": None, "first_input_ms": None}, duration_ms=5000)["keys"] is None


def test_a_record_that_cannot_be_true_is_marked_invalid():
    # hidden for longer than the item was on the server's clock, with 2 s for the clocks' difference
    assert behaviour.checked(FIGURES, duration_ms=1999)["status"] == "invalid"
    assert behaviour.checked(FIGURES, duration_ms=2000)["status"] == "recorded"
    assert behaviour.checked({**FIGURES, "first_input_ms": 9000}, duration_ms=5000) == {"status": "invalid"}
    assert behaviour.checked({**FIGURES, "hidden": 0}, duration_ms=5000) == {"status": "invalid"}, (
        "time away, never away"
    )


def test_the_reading_floor_is_a_reaction_and_twelve_words_a_second():
    assert behaviour.reading_floor_ms(0) == 300
    assert behaviour.reading_floor_ms(24) == 300 + 2000
    assert behaviour.reading_floor_ms(30) == 300 + 2500
    shown = {"text": "Esther asked “Is it raining?”", "question": "Yes or no?", "kind": "free_text", "long": True}
    assert behaviour.shown_words(shown, ["Yes", "No"]) == 5 + 3 + 2, "read parts and labels only"


def test_canary_words_are_made_up_and_differ_between_draws():
    drawn = [behaviour.canary_word() for _ in range(200)]
    assert all(re.fullmatch(r"([bdfgklmnprstvz][aeiou]){3}[kxz]", word) for word in drawn)
    assert len(set(drawn)) >= 198


def test_the_canary_matches_as_a_word_in_any_case():
    assert behaviour.carries_canary("Reverse the word. Tavorix.", "tavorix")
    assert behaviour.carries_canary("use TAVORIX here", "tavorix")
    assert not behaviour.carries_canary("tavorixes and xtavorix", "tavorix")
    assert not behaviour.carries_canary("anything", "")
