"""A researcher's own items: records of each kind built into items, every refusal naming its file,
line and field, and the scoring of each kind and metric (pure: no database)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from parity.benchmarks import get
from parity.benchmarks.base import DatasetError, ItemData
from parity.benchmarks.custom import items_from_file, items_from_records, score_answer, scoring
from parity.benchmarks.custom.model import cut_at_stops
from tests.paths import REPO

EXAMPLE = REPO / "parity" / "benchmarks" / "custom" / "example.csv"


def one(record: dict, **kwargs) -> ItemData:
    return items_from_records([record], name="pilot", label="items.jsonl", lines=[7], **kwargs).items[0]


def refusal(record: dict) -> str:
    with pytest.raises(DatasetError) as caught:
        items_from_records([record], name="pilot", label="items.jsonl", lines=[7])
    return str(caught.value)


# -- each kind --------------------------------------------------------------------------------


def test_the_example_file_has_every_kind_categories_and_one_attention_check() -> None:
    items = items_from_file(EXAMPLE, name="example").items
    assert {item.meta["kind"] for item in items} == {"choice", "yes_no", "short_text", "number", "rating", "free_text"}
    assert all(item.key.startswith("example/") and item.meta.get("category") for item in items)
    assert [item.meta["id"] for item in items if item.is_attention_check] == ["check"]
    assert items[0].meta["line"] == 2  # a spreadsheet's row number: the header is row 1


def test_a_choice_item_keeps_its_options_for_people_and_one_continuation_per_option_for_models() -> None:
    item = one(
        {
            "id": 1,
            "text": "Capital?",
            "kind": "choice",
            "options": ["Paris", "Rome"],
            "gold": "Rome",
            "category": "geo",
            "source": "atlas",
        }
    )
    assert item.key == "pilot/1" and item.gold == "Rome" and item.split == "test"
    assert item.prompt == {
        "kind": "choice",
        "text": "Capital?",
        "format": "plain",
        "context": "",
        "options": ["Paris", "Rome"],
    }
    assert item.meta["model"]["context"] == "Capital?\nOptions: Paris, Rome\nAnswer:"
    assert item.meta["model"]["continuations"] == [" Paris", " Rome"]
    assert item.meta["extra"] == {"source": "atlas"} and item.meta["category"] == "geo"
    assert "source" not in item.prompt


def test_yes_no_implies_its_options_and_reads_the_gold_in_any_case() -> None:
    item = one({"id": "a", "text": "Is it?", "kind": "yes_no", "gold": "Yes"})
    assert item.prompt["options"] == ["yes", "no"] and item.gold == "yes"


def test_short_text_keeps_every_accepted_answer_out_of_the_prompt() -> None:
    item = one(
        {
            "id": "a",
            "text": "Who?",
            "kind": "short_text",
            "gold": "Jane Austen|Austen",
            "metric": "f1",
            "stop": "\\n\\n|Question:",
            "max_tokens": "20",
        }
    )
    assert item.gold == "Jane Austen" and item.meta["answers"] == ["Jane Austen", "Austen"]
    assert item.meta["metric"] == "f1" and item.meta["model"]["stop"] == ["\n\n", "Question:"]
    assert item.meta["model"]["max_tokens"] == 20
    assert "Austen" not in json.dumps(item.prompt)


def test_number_rating_and_free_text() -> None:
    number = one({"id": "n", "text": "How many?", "kind": "number", "gold": "8.0", "tolerance": 0.5})
    assert number.gold == "8" and number.meta["metric"] == "numeric" and number.meta["tolerance"] == 0.5
    rating = one({"id": "r", "text": "Rate", "kind": "rating", "options": "1|2|3"})
    assert rating.gold == "" and rating.meta["scale"] == ["1", "2", "3"]
    free = one({"id": "f", "text": "Write", "kind": "free_text", "format": "markdown"})
    assert free.gold == "" and free.prompt["format"] == "markdown" and free.meta["model"]["stop"] == ["\n"]


def test_a_template_fills_in_extra_fields_and_model_context_overrides_it() -> None:
    item = one(
        {
            "id": "t",
            "text": "2+2?",
            "kind": "number",
            "gold": 4,
            "topic": "sums",
            "prompt_template": "Topic: {topic}\nQ: {text}\nA:",
        }
    )
    assert item.meta["model"]["context"] == "Topic: sums\nQ: 2+2?\nA:"
    exact = one(
        {
            "id": "t",
            "text": "2+2?",
            "kind": "choice",
            "options": ["4", "5"],
            "gold": "4",
            "prompt_template": "{text}",
            "model_context": "Q: 2+2?\nA:",
            "continuations": [" four", " five"],
        }
    )
    assert exact.meta["model"] == {"context": "Q: 2+2?\nA:", "continuations": [" four", " five"], "lengths": [1, 1]}


# -- a template is plain substitutions, and a model's context has a length limit ----------------


@pytest.mark.parametrize(
    ("template", "shown"),
    [
        ("{text:>2000000}", "{text:>2000000}"),
        ("Q: {text!r}", "{text!r}"),
        ("{text!s:^9}", "{text!s:^9}"),
        ("{context:{text}}", "{context:{text}}"),
    ],
)
def test_a_template_with_a_format_spec_or_a_conversion_is_refused_naming_line_and_field(
    template: str, shown: str
) -> None:
    """98 bytes of `{text:>2000000}` would make a 2 MB context: refused before anything is built."""
    message = refusal({"id": "a", "text": "x", "kind": "free_text", "prompt_template": template})
    assert message.startswith("items.jsonl, row 7: field 'prompt_template': ")
    assert shown in message and "only {field} is allowed" in message and "write {" in message


def test_plain_substitutions_and_doubled_braces_are_filled_in() -> None:
    item = one({"id": "a", "text": "2+2?", "kind": "free_text", "prompt_template": "{{Q}} {text}\n{id}: {text}"})
    assert item.meta["model"]["context"] == "{Q} 2+2?\na: 2+2?"


def test_a_context_longer_than_the_limit_is_refused_naming_line_and_field() -> None:
    record = {"id": "a", "text": "x" * 50, "kind": "free_text", "prompt_template": "{text}" * 3}
    assert one(record, max_context_chars=150).meta["model"]["context"] == "x" * 150
    with pytest.raises(DatasetError) as caught:
        one(record, max_context_chars=149)
    assert str(caught.value) == (
        "items.jsonl, row 7: field 'prompt_template': fills in to 150 characters; a model's context has at most 149"
    )
    # a given context and the default one are held to the same limit
    with pytest.raises(DatasetError, match="row 7: field 'model_context': makes a model's context of 200"):
        one({"id": "a", "text": "x", "kind": "free_text", "model_context": "y" * 200}, max_context_chars=149)
    with pytest.raises(DatasetError, match="row 7: field 'text': makes a model's context of 208"):
        one({"id": "a", "text": "x" * 200, "kind": "free_text"}, max_context_chars=149)


def test_a_template_that_would_fill_in_to_gigabytes_is_refused_without_being_built() -> None:
    """A 1 MB text in a template repeating it 2,000 times: counted, not built."""
    record = {"id": "a", "text": "x" * 1_000_000, "kind": "free_text", "prompt_template": "{text}" * 2000}
    assert "fills in to 2,000,000,000 characters; a model's context has at most 20,000" in refusal(record)


# -- every refusal names the file, the line and the field ---------------------------------------


@pytest.mark.parametrize(
    ("record", "field", "problem"),
    [
        ({"text": "x", "kind": "free_text"}, "id", "is required"),
        ({"id": "a", "kind": "free_text"}, "text", "is required"),
        ({"id": "a", "text": "x", "kind": "essay"}, "kind", "must be one of"),
        ({"id": "a", "text": "x", "kind": "choice", "options": "a|b", "gold": "c"}, "gold", "is not among the options"),
        ({"id": "a", "text": "x", "kind": "choice", "options": "a", "gold": "a"}, "options", "at least 2 options"),
        ({"id": "a", "text": "x", "kind": "choice", "options": "a|b"}, "gold", "needs its right answer"),
        ({"id": "a", "text": "x", "kind": "number", "gold": "eight"}, "gold", "must be a number"),
        ({"id": "a", "text": "x", "kind": "number", "gold": 8, "tolerance": "-1"}, "tolerance", "must be 0 or more"),
        ({"id": "a", "text": "x", "kind": "short_text", "gold": "a", "metric": "bleu"}, "metric", "must be one of"),
        ({"id": "a", "text": "x", "kind": "rating", "options": "1|2", "gold": "1"}, "gold", "no right answer"),
        ({"id": "a", "text": "x", "kind": "free_text", "attention_check": "true"}, "attention_check", "needs a right"),
        (
            {"id": "a", "text": "x", "kind": "free_text", "prompt_template": "{question}"},
            "prompt_template",
            "unknown field {question}",
        ),
        (
            {"id": "a", "text": "x", "kind": "free_text", "prompt_template": "{text.upper}"},
            "prompt_template",
            "unknown field",
        ),
        ({"id": "a", "text": "x", "kind": "free_text", "prompt_template": "{text"}, "prompt_template", "malformed"),
        (
            {"id": "a", "text": "x", "kind": "yes_no", "gold": "yes", "continuations": " y"},
            "continuations",
            "one per option",
        ),
        ({"id": "a", "text": "x", "kind": "number", "gold": 1, "max_tokens": "0"}, "max_tokens", "whole number"),
        ({"id": "a", "text": "x", "kind": "free_text", "format": "html"}, "format", "plain or markdown"),
        (
            {"id": "a", "text": "x", "kind": "free_text", "prompt_template": "{text:{nope}}"},
            "prompt_template",
            "is not a plain substitution",
        ),
        (
            {"id": "a", "text": "x", "kind": "free_text", "prompt_template": "{text:{text.zz}}"},
            "prompt_template",
            "is not a plain substitution",
        ),
        ({"id": "a", "text": "x", "kind": "number", "gold": 10**400}, "gold", "must be a number"),
        (
            {"id": "a", "text": "x", "kind": "number", "gold": 1, "max_tokens": 10**400},
            "max_tokens",
            "must be a number",
        ),
        ({"id": "a", "text": "x", "kind": "free_text", "split": "s" * 41}, "split", "longer than 40"),
        ({"id": "a", "text": "x\x00y", "kind": "free_text"}, "text", "NUL character"),
        ({"id": "a", "text": "x", "kind": "free_text", "note": ["fine", "x\x00"]}, "note", "NUL character"),
        (
            {"id": "a", "text": "x", "kind": "short_text", "gold": "a", "metric_options": "strip"},
            "metric_options",
            "only the exact_match metric",
        ),
        (
            {
                "id": "a",
                "text": "x",
                "kind": "short_text",
                "gold": "a",
                "metric": "exact_match",
                "metric_options": "trim",
            },
            "metric_options",
            "must be among",
        ),
        (
            {"id": "a", "text": "x", "kind": "choice", "options": "a|b", "gold": "a", "metric_options": "strip"},
            "metric_options",
            "only short_text and number items have a metric",
        ),
    ],
)
def test_a_bad_record_is_refused_naming_file_line_and_field(record: dict, field: str, problem: str) -> None:
    message = refusal(record)
    assert message.startswith(f"items.jsonl, row 7: field '{field}'") and problem in message


def test_a_duplicate_id_names_both_lines() -> None:
    records = [{"id": "a", "text": "x", "kind": "free_text"}, {"id": "a", "text": "y", "kind": "free_text"}]
    with pytest.raises(DatasetError) as caught:
        items_from_records(records, name="pilot", label="items.csv", lines=[2, 5])
    assert str(caught.value) == "items.csv, row 5: field 'id': duplicate id 'a' (first on line 2)"


def test_the_set_name_must_be_a_slug() -> None:
    with pytest.raises(DatasetError, match="must be a slug"):
        items_from_records([{"id": "a", "text": "x", "kind": "free_text"}], name="My Set", label="f.csv")


def test_a_csv_missing_a_column_is_refused_on_its_header_row(tmp_path: Path) -> None:
    path = tmp_path / "items.csv"
    path.write_text("id,text\n1,hello\n", encoding="utf-8")
    with pytest.raises(DatasetError, match=r"items.csv, row 1: missing column\(s\) kind"):
        items_from_file(path, name="pilot")


def test_a_spreadsheets_trailing_empty_columns_are_no_columns_but_an_unnamed_one_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "items.csv"
    path.write_text("id,text,kind,,\n1,hello,free_text,,\n", encoding="utf-8")
    assert [item.key for item in items_from_file(path, name="pilot").items] == ["pilot/1"]
    path.write_text("id,,text,kind\n1,,hello,free_text\n", encoding="utf-8")
    with pytest.raises(DatasetError, match=r"items.csv, row 1: column 2 has no name"):
        items_from_file(path, name="pilot")


@pytest.mark.parametrize(
    ("line", "problem"),
    [
        ('{"id": "a", "text": "x", "kind": "number", "gold": ' + "9" * 5000 + "}", "not readable JSON"),
        ('{"id": "a", "x": ' + "[" * 100000 + "]" * 100000 + "}", "not readable JSON"),
    ],
)
def test_jsonl_python_cannot_read_is_refused_naming_the_line(tmp_path: Path, line: str, problem: str) -> None:
    path = tmp_path / "items.jsonl"
    path.write_text("\n" + line + "\n", encoding="utf-8")
    with pytest.raises(DatasetError, match=rf"items.jsonl, row 2: {problem}"):
        items_from_file(path, name="pilot")


def test_a_csv_error_names_the_spreadsheet_row(tmp_path: Path) -> None:
    path = tmp_path / "items.csv"
    path.write_text('id,text,kind,options,gold\n1,"two\nlines",choice,a|b,a\n2,x,choice,a|b,c\n', encoding="utf-8")
    with pytest.raises(DatasetError) as caught:
        items_from_file(path, name="pilot")
    assert str(caught.value).startswith("items.csv, row 3: field 'gold'")


def test_a_jsonl_error_names_its_line_blank_lines_counted(tmp_path: Path) -> None:
    path = tmp_path / "items.jsonl"
    path.write_text(
        '{"id": 1, "text": "x", "kind": "free_text"}\n\n{"id": 2, "text": "y", "kind": "number"}\n', encoding="utf-8"
    )
    with pytest.raises(DatasetError, match=r"items.jsonl, row 3: field 'gold'"):
        items_from_file(path, name="pilot")
    path.write_text('{"id": 1, "text": "x", "kind": "free_text"}\n{"id": 2,\n', encoding="utf-8")
    with pytest.raises(DatasetError, match=r"items.jsonl, row 2: not valid JSON"):
        items_from_file(path, name="pilot")


# -- scoring -----------------------------------------------------------------------------------


def test_squad_normalisation_and_each_metric() -> None:
    assert scoring.normalise_answer("  The  Eiffel-Tower! ") == "eiffeltower"
    assert scoring.exact_score("the Jane Austen.", "Jane Austen") == 1.0
    assert scoring.contains_score("It was written by Jane Austen, I think", "jane austen") == 1.0
    assert scoring.contains_score("Austenite", "Austen") == 0.0
    assert scoring.f1_score("Jane Austen wrote it", "Jane Austen") == pytest.approx(2 * 0.5 * 1 / 1.5)
    assert scoring.numeric_score("3.141", "3.14", 0.005) == 1.0 and scoring.numeric_score("3.2", "3.14", 0.005) == 0.0
    assert scoring.parse_number("1,234.5") == 1234.5 and scoring.parse_number("twelve") is None
    assert scoring.first_number("The answer is -12.5 metres.") == -12.5
    assert scoring.is_correct("f1", 0.5) and not scoring.is_correct("exact", 0.99)


def test_a_human_answer_is_scored_by_its_items_kind_and_metric() -> None:
    items = {item.meta["id"]: item for item in items_from_file(EXAMPLE, name="example").items}
    assert score_answer("Canberra", items["capital"]).correct and not score_answer("Sydney", items["capital"]).correct
    assert not score_answer("Perth", items["capital"]).valid
    assert score_answer("YES", items["boiling"]).answer == "yes"
    assert score_answer("au", items["symbol"]).correct and not score_answer("Ag", items["symbol"]).correct
    assert score_answer("austen", items["author"]).correct  # f1 against any accepted answer
    assert score_answer(" 8.0 ", items["legs"]).answer == "8" and score_answer("8", items["legs"]).correct
    assert not score_answer("eight", items["legs"]).valid
    assert score_answer("3.144", items["pi"]).correct and not score_answer("3.2", items["pi"]).correct
    rating = score_answer("4", items["clarity"])
    assert rating.valid and not rating.correct and not score_answer("6", items["clarity"]).valid
    assert score_answer("Rivers shape land.", items["summary"]).valid and not score_answer("  ", items["summary"]).valid


def test_a_refused_number_says_why_and_a_choice_asks_to_choose() -> None:
    definition = get("custom")
    items = {item.meta["id"]: item for item in items_from_file(EXAMPLE, name="example").items}
    scored = definition.score("eight", items["legs"].gold, {}, item=items["legs"])
    assert "Please type a number" in definition.refusal("eight", scored, {}, item=items["legs"])
    scored = definition.score("Perth", items["capital"].gold, {}, item=items["capital"])
    assert definition.refusal("Perth", scored, {}, item=items["capital"]) == "Please choose one of the answers."


def test_a_generation_is_cut_at_the_first_stop_string() -> None:
    assert cut_at_stops("Paris\n\nQuestion: next", ["Question:", "\n\n"]) == "Paris"
    assert cut_at_stops("\nParis", ["\n"]) == ""
    assert cut_at_stops("Paris", ["\n"]) == "Paris"


def test_a_study_draws_on_one_item_set() -> None:
    definition = get("custom")
    items = items_from_file(EXAMPLE, name="example").items + items_from_file(EXAMPLE, name="other").items
    design = definition.design({"item_set": "example", "unit_size": 3})
    units = definition.build_units(items, design)
    assert [len(unit) for unit in units] == [3, 3, 2]  # the attention check is not a unit's item
    assert all(key.startswith("example/") for unit in units for key in unit)
    assert definition.design_errors(definition.design({"item_set": "Not a name"})).keys() == {"item_set"}
    with pytest.raises(ValueError, match="Name the item set"):
        definition.build_units(items, definition.design())


def test_a_long_written_answer_is_kept_whole_and_scored_whole() -> None:
    free = one({"id": "f", "text": "Write", "kind": "free_text"})
    long = "word " * 100
    assert score_answer(long, free).answer == long.strip()
    short = one({"id": "s", "text": "Name it", "kind": "short_text", "gold": "needle", "metric": "contains"})
    assert score_answer("hay " * 60 + "needle", short).correct
