"""Implicature texts as the authors' loader keeps them (do-pigs-fly, src/dataset.py)."""

from __future__ import annotations

import csv
import re

import pytest

from parity.benchmarks import get
from parity.benchmarks.implicature import clean_text

from ._data import dataset


@pytest.fixture(scope="module")
def bundle():
    return get("implicature").load(dataset("implicature"))


@pytest.fixture(scope="module")
def items(bundle):
    return {item.key: item for item in bundle.items}


@pytest.fixture(scope="module")
def rows(bundle):
    """Items by (split, row of the published file): keys hash the text, not the row."""
    return {(item.split, item.meta["row"]): item for item in bundle.items if "row" in item.meta}


def test_only_line_breaks_are_stripped_from_the_ends():
    # do-pigs-fly tests/test_dataset.py::test_filter_examples_no_control: the utterance
    # "I keep putting off getting my passport application.\n\n" becomes the text without "\n\n".
    assert clean_text("I keep putting off getting my passport application.\n\n") == (
        "I keep putting off getting my passport application."
    )
    # the authors' reader keeps a Windows "\r" and strips the "\n" alone
    assert clean_text("Did he pass the exam?\r\n") == "Did he pass the exam?\r"
    assert clean_text("Line one\r\nline two\r\n") == "Line one\r\nline two\r"
    assert clean_text(" I can get it.") == " I can get it."
    assert clean_text("you got anything to sell? ") == "you got anything to sell? "
    assert clean_text("Line one\nline two") == "Line one\nline two"


def test_spaces_at_the_ends_of_the_published_texts_reach_the_prompt(items, rows):
    # Test row 28 and dev row 43 as `ParticularisedImplicatureDataset._process_text` leaves them.
    assert rows["test", 28].prompt == {"utterance": "you got anything to sell? ", "response": " I can get it."}
    assert rows["dev", 43].prompt == {"utterance": "Anything new?", "response": " The usual gas."}
    padded = {
        split: sum(
            1
            for item in items.values()
            if item.split == split and any(value != value.strip(" ") for value in item.prompt.values())
        )
        for split in ("test", "dev")
    }
    assert padded == {"test": 35, "dev": 5}
    assert not any(
        value.endswith("\n") or value.startswith("\n") for item in items.values() for value in item.prompt.values()
    )
    # the authors' reader keeps "\r": 26 fields of 25 test items, 20 ending in it, 8 with "\r\n" inside
    carrying = [value for item in items.values() for value in item.prompt.values() if "\r" in value]
    assert len(carrying) == 26 and sum(value.endswith("\r") for value in carrying) == 20
    assert sum("\r\n" in value for value in carrying) == 8


def test_the_model_prompt_keeps_the_spaces_inside_the_quotes(bundle, rows):
    definition = get("implicature")
    assets = {asset.key: asset.data for asset in bundle.assets}
    [request] = definition.model_requests([rows["test", 28]], assets, definition.model_setting())
    assert request.context.endswith(
        'Esther asked "you got anything to sell? " and Juan responded " I can get it.", which means'
    )


def _published_questions() -> list[str]:
    questions = []
    for subset in ("1-150", "151-300", "301-450", "451-600"):
        with open(dataset("implicature") / f"human_eval_{subset}.csv", newline="", encoding="utf-8") as handle:
            questions += [row["Question"] for row in csv.DictReader(handle)]
    return questions


def _without_quote_line_breaks(text: str) -> str:
    # The human-study sheet kept a cell's final line break inside the quotes (and a few
    # non-breaking spaces); the authors' model loader strips the line breaks.
    return re.sub(r'\n+"', '"', re.sub(r'"\n+', '"', text)).replace("\xa0", " ").strip()


def test_the_template_2_text_is_the_question_the_published_annotators_read(items):
    """human_eval_*.csv's Question column (rows in test-file order) against our template-2 text."""
    definition = get("implicature")
    test = sorted((item for item in items.values() if item.split == "test"), key=lambda item: item.meta["row"])
    questions = _published_questions()
    assert len(questions) == len(test) == 600
    ours = [definition.present(item.prompt, definition.design())["text"] for item in test]
    assert [_without_quote_line_breaks(text) for text in ours] == [_without_quote_line_breaks(q) for q in questions]
    assert (
        ours[27]
        == questions[27]
        == ('Esther asked "you got anything to sell? " and Juan responded " I can get it.", which means')
    )
