"""The pure integrity rules: a behaviour record checked against the server's time, the reading
floor, the canary word and its match."""

from __future__ import annotations

import re

from parity.stats.quality import behaviour

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


def test_on_the_published_texts_the_canary_fires_on_no_honest_answer():
    """The figures of docs/integrity.md: no published human-written instruction (instruction
    induction's annotations) has a word of a canary's shape, and of the 1.4 million words of the
    published files only six do, so a study's word is one of them with odds of 6 in 1,029,000."""
    import json

    from tests.conftest import dataset

    shape = re.compile(r"\b(?:[bdfgklmnprstvz][aeiou]){3}[kxz]\b", re.IGNORECASE)
    written = [
        text
        for path in sorted((dataset("instruction_induction") / "annotations").glob("*.json"))
        for text in json.loads(path.read_text())["annotations"]
    ]
    assert len(written) == 186 and not any(shape.search(text) for text in written)
    published = [
        path.read_text(encoding="utf-8", errors="replace")
        for name in ("instruction_induction", "implicature", "miqa")
        for path in sorted(dataset(name).rglob("*"))
        if path.suffix in (".json", ".csv", ".tsv")
    ]
    found = {match.group(0).lower() for text in published for match in shape.finditer(text)}
    assert found == {"madurez", "mubarak", "politik", "rapidez", "solidez", "validez"}
    assert 14 * 5 * 14 * 5 * 14 * 5 * 3 == 1_029_000
