from __future__ import annotations

import csv
import json
import re
from collections import Counter
from pathlib import Path

import pytest

from parity.benchmarks import get
from parity.benchmarks.base import DatasetError, ItemData
from parity.benchmarks.miqa import (
    FILENAME,
    MiQA,
    both_orders,
    choice_prompt,
    generative_prompt,
    generative_question_id,
    nli_pairs,
    option_order,
    parse_generative_answers,
    question_key,
    question_text,
    rating_value,
    select_shots,
)

from ._data import dataset

BENCH = MiQA()
HEADER = "literal_premise\tmetaphorical_premise\tliteral_conclusion\tmetaphorical_conclusion\n"


@pytest.fixture(scope="module")
def source() -> Path:
    return dataset("miqa")


@pytest.fixture(scope="module")
def items(source) -> list[ItemData]:
    return BENCH.load(source).items


def _published_rows(source: Path) -> list[list[str]]:
    with (source / FILENAME).open(encoding="utf-8", newline="") as handle:
        return list(csv.reader(handle, delimiter="\t", quoting=csv.QUOTE_NONE))[1:]


def _write(tmp_path: Path, text: str) -> Path:
    (tmp_path / FILENAME).write_text(text, encoding="utf-8")
    return tmp_path


def _example() -> dict:
    return {
        "direction": "implies",
        "statement": "I see what you mean",
        "question": '"I see what you mean". Which of the following statements could that imply?',
        "options": {"a": "My eyes are working well", "b": "I understand you"},
    }


def test_it_is_registered_with_its_pinned_source() -> None:
    assert isinstance(get("miqa"), MiQA)
    (spec,) = BENCH.source_files()
    assert spec.path == FILENAME and len(spec.sha256) == 64 and "865fae65" in spec.url


def test_150_rows_give_300_questions_150_in_each_direction(items, source) -> None:
    assert len(items) == 300
    assert len({item.key for item in items}) == 300
    assert Counter(item.meta["direction"] for item in items) == {"implies": 150, "implied-by": 150}
    # keys name the direction and hash the question's own sentences, not the row it sits on
    assert items[0].key.startswith("miqa-implies-") and items[1].key.startswith("miqa-implied-by-")
    assert items[0].key == question_key("implies", items[0].prompt["statement"], *items[0].prompt["options"].values())
    assert [item.meta["row"] for item in items[:2]] == [1, 1] and items[-1].meta["row"] == 150
    rows = _published_rows(source)
    for item in items:
        lp, mp, lc, mc = rows[item.meta["row"] - 1]
        prompt = item.prompt
        assert set(prompt) == {"direction", "statement", "question", "options"}
        if item.meta["direction"] == "implies":
            assert (prompt["statement"], prompt["options"], item.gold) == (mp, {"a": lc, "b": mc}, "b")
        else:
            assert (prompt["statement"], prompt["options"], item.gold) == (lc, {"a": lp, "b": mp}, "a")
        assert prompt["options"][item.gold] in (mc, lp), "M_c and L_p are the correct answers"
        assert prompt["statement"] in prompt["question"]


@pytest.mark.parametrize(
    ("text", "problem", "row"),
    [
        (HEADER + "a\tb\tc\n", "found 3 (truncated?)", 2),
        (HEADER + "a\tb\tc\td\n" + "a\tb\t\td\n", "empty field(s) literal_conclusion", 3),
        (HEADER + "a\tb\tc\td\te\n", "found 5", 2),
        ("premise\tconclusion\n", "expected the header", 1),
    ],
)
def test_malformed_rows_are_refused_naming_file_and_row(tmp_path, text, problem, row) -> None:
    with pytest.raises(DatasetError) as caught:
        BENCH.load(_write(tmp_path, text))
    assert caught.value.row == row and problem in caught.value.problem
    assert FILENAME in str(caught.value) and f"row {row}" in str(caught.value)


def test_a_file_cut_short_or_missing_is_refused(tmp_path, source) -> None:
    lines = (source / FILENAME).read_text(encoding="utf-8").splitlines(keepends=True)
    with pytest.raises(DatasetError, match="expected 150 rows, found 149"):
        BENCH.load(_write(tmp_path, "".join(lines[:-1])))
    with pytest.raises(DatasetError, match=r"row 151: expected 4 tab-separated fields, found 2"):
        BENCH.load(_write(tmp_path, "".join(lines[:-1]) + lines[-1].split("\t")[0] + "\t" + "cut"))
    with pytest.raises(DatasetError, match="file not found"):
        BENCH.load(tmp_path / "elsewhere")


def test_appendix_a_wordings_with_the_options_as_continuations() -> None:
    prompt = _example()
    assert question_text(prompt, 1) == (
        '"I see what you mean". Which of the following two statements could that imply? '
        "My eyes are working well or I understand you?"
    )
    assert question_text(prompt, 2).endswith("could that imply? (1) My eyes are working well (2) I understand you")
    choice = choice_prompt(prompt, 3)
    assert choice.context == (
        'Q: "I see what you mean". Which of the following two statements could that imply? '
        "(1) My eyes are working well (2) I understand you A:"
    )
    assert choice.continuations == {"a": " My eyes are working well", "b": " I understand you"}
    assert choice_prompt(prompt, 4).context.endswith("(2) I understand you Answer: It could imply")
    swapped = choice_prompt(prompt, 3, ("b", "a"))
    assert swapped.context.endswith("(1) I understand you (2) My eyes are working well A:")
    assert swapped.continuations == choice.continuations
    implied_by = {
        "direction": "implied-by",
        "statement": "My eyes are working well",
        "question": "",
        "options": {"a": "I see what you are pointing at", "b": "I see what you mean"},
    }
    assert choice_prompt(implied_by, 3).context == (
        'Q: "My eyes are working well" is implied by which of the following two statements? '
        "(1) I see what you are pointing at (2) I see what you mean A:"
    )
    with pytest.raises(ValueError, match="wording"):
        question_text(prompt, 7)
    with pytest.raises(ValueError, match="permutation"):
        choice_prompt(prompt, 3, ("a", "a"))


def test_the_two_baselines_drop_the_question() -> None:
    empty = choice_prompt(_example(), "empty")
    assert empty.context == "" and empty.continuations == {"a": "My eyes are working well", "b": "I understand you"}
    pick = choice_prompt(_example(), "pick", ("b", "a"))
    assert pick.context == "Pick between the following statements: (1) I understand you (2) My eyes are working well"
    assert pick.continuations["b"] == " I understand you"


def test_k_shot_prefixes_are_seeded_same_direction_and_never_the_same_row(items) -> None:
    item = items[10]
    shots = select_shots(item, items, 5, seed=3)
    assert len(shots) == 5 and len({shot.key for shot in shots}) == 5
    assert all(
        shot.meta["direction"] == item.meta["direction"] and shot.meta["row"] != item.meta["row"] for shot in shots
    )
    assert select_shots(item, items, 5, seed=3) == shots
    assert select_shots(item, items, 5, seed=4) != shots
    assert select_shots(items[12], items, 5, seed=3) != shots, "drawn anew for each question"
    assert select_shots(item, items, 0) == []
    (first, one), (second, other) = both_orders(item, items, 5, 3, seed=3)
    assert (first, second) == (("a", "b"), ("b", "a"))
    blocks = one.context.split("\n\n")
    assert len(blocks) == 6 and other.context.split("\n\n")[:5] == blocks[:5]
    for shot, block in zip(shots, blocks):
        assert block.endswith(" A: " + shot.prompt["options"][shot.gold])
        assert f'"{shot.prompt["statement"]}"' in block
    assert one.continuations == other.continuations == {key: " " + text for key, text in item.prompt["options"].items()}


def test_an_empty_prompt_with_shots_lists_only_the_correct_statements(items) -> None:
    (_, choice), _ = both_orders(items[0], items, 1, "empty", seed=0)
    (shot,) = select_shots(items[0], items, 1, seed=0)
    assert choice.context == shot.prompt["options"][shot.gold] + "\n\n"
    assert choice.continuations["a"] == items[0].prompt["options"]["a"]


def test_nli_pairs_put_the_premise_first(items) -> None:
    implies, implied_by = items[0], items[1]
    assert nli_pairs(implies.prompt)["b"] == (implies.prompt["statement"], implies.prompt["options"]["b"])
    assert nli_pairs(implied_by.prompt)["a"] == (implied_by.prompt["options"]["a"], implied_by.prompt["statement"])


def test_humans_see_two_buttons_in_the_order_given_and_never_the_gold(items) -> None:
    item = items[0]
    shown = BENCH.present(item.prompt, BENCH.design(), order=("b", "a"))
    assert shown["question"] == item.prompt["question"]
    assert [(o["position"], o["label"]) for o in shown["options"]] == [
        ("1", item.prompt["options"]["b"]),
        ("2", item.prompt["options"]["a"]),
    ]
    assert "gold" not in shown and "correct" not in json.dumps(shown) and "order" not in shown


def test_the_buttons_post_screen_positions_that_the_screen_maps_to_the_options(items) -> None:
    """Whatever the order, a button's value is its position; only the server's screen knows the key."""
    for item in items[:40]:
        screen = BENCH.screen(item.key, item.prompt, BENCH.design(), viewer="participant-7")
        order = screen.record["option_order"]
        assert [(c.value, c.keys) for c in screen.choices] == [("1", ("1",)), ("2", ("2",))]
        assert [c.label for c in screen.choices] == [item.prompt["options"][key] for key in order]
        assert screen.answer_for("1") == order[0] and screen.answer_for(" 2 ") == order[1]
        assert screen.answer_for("a") == "" and screen.answer_for("b") == "" and screen.answer_for("3") == ""
    fixed = BENCH.design({"shuffle_options": False})
    orders = [
        BENCH.screen(item.key, item.prompt, fixed, viewer=viewer).record["option_order"]
        for item in items
        for viewer in ("participant-1", "participant-2")
    ]
    assert orders[0::2] == orders[1::2], "without shuffling, every participant sees the same order"
    assert 110 < orders[0::2].count("ab") < 190, "... drawn at random per question"


def test_the_option_order_is_random_per_participant_but_reproducible(items) -> None:
    orders = Counter(option_order("participant-1", item.key) for item in items)
    assert set(orders) == {("a", "b"), ("b", "a")}
    assert 110 < orders[("a", "b")] < 190
    assert [option_order("participant-1", item.key) for item in items] == [
        option_order("participant-1", item.key) for item in items
    ]
    assert [option_order("participant-1", item.key) for item in items] != [
        option_order("participant-2", item.key) for item in items
    ]


@pytest.mark.parametrize(("raw", "parsed"), [("a", "a"), (" B ", "b"), ("1", None), ("c", None), ("", None)])
def test_parse_answer_accepts_the_option_keys(raw, parsed) -> None:
    assert BENCH.parse_answer(raw) == parsed
    assert not BENCH.free_text_answers


def test_the_default_unit_is_all_300_questions_for_15_participants(items) -> None:
    design = BENCH.design()
    units = BENCH.build_units(items, design)
    assert design["per_unit"] == 15 and len(units) == 1 and sorted(units[0]) == sorted(item.key for item in items)
    halves = BENCH.build_units(items, BENCH.design({"units": 2, "unit_size": 150}))
    assert [len(unit) for unit in halves] == [150, 150]
    row_of = {item.key: item.meta["row"] for item in items}
    assert {row_of[key] for key in halves[0]} == set(range(1, 76)), "a row stays in one unit, in file order"
    with pytest.raises(ValueError, match="need 600"):
        BENCH.build_units(items, BENCH.design({"units": 2}))


def test_attention_checks_have_a_plain_answer() -> None:
    checks = BENCH.attention_checks()
    assert checks and all(check.is_attention_check and check.gold == "a" for check in checks)
    assert all(check.prompt["options"]["a"] in check.prompt["question"] for check in checks)


def test_the_generative_question_reads_the_metaphor_literally(items) -> None:
    assert generative_prompt(items[0].prompt) == (
        f'"{items[0].prompt["statement"]}". Could that imply that "{items[0].prompt["options"]["a"]}"?'
    )
    with pytest.raises(ValueError):
        generative_prompt(items[1].prompt)
    assert generative_question_id(7) == "miqa-007-generative"


def test_generative_answers_are_parsed_with_an_error_per_line(tmp_path) -> None:
    path = tmp_path / "answers.jsonl"
    good = [
        {"question_id": "miqa-001-generative", "model": "m", "answer": "No, it means ..."},
        {"question_id": "miqa-002-generative", "model": "m", "answer": ""},
    ]
    path.write_text("\n".join(json.dumps(record) for record in good) + "\n\n", encoding="utf-8")
    parsed = parse_generative_answers(path, known_ids={"miqa-001-generative", "miqa-002-generative"})
    assert [(a.question_id, a.model, a.answer, a.line) for a in parsed] == [
        ("miqa-001-generative", "m", "No, it means ...", 1),
        ("miqa-002-generative", "m", "", 2),
    ]
    cases = [
        ('{"question_id": "q", "model": "m"', "row 2: not valid JSON"),
        ('["q", "m", "a"]', "row 2: expected a JSON object"),
        ('{"question_id": "q", "model": "m"}', "row 2: missing field(s) answer"),
        ('{"question_id": "q", "model": 3, "answer": "a"}', "row 2: field(s) model must be strings"),
        ('{"question_id": "miqa-001-generative", "model": "m", "answer": "again"}', "row 2: a second answer"),
    ]
    for bad, message in cases:
        path.write_text(json.dumps(good[0]) + "\n" + bad + "\n", encoding="utf-8")
        with pytest.raises(DatasetError, match=re.escape(message)):
            parse_generative_answers(path)
    path.write_text(json.dumps(good[0]) + "\n", encoding="utf-8")
    with pytest.raises(DatasetError, match="row 1: unknown question_id"):
        parse_generative_answers(path, known_ids={"other"})


def test_ratings_score_correct_ambiguous_wrong_as_one_half_zero() -> None:
    assert [rating_value(label) for label in ("correct", "Ambiguous", " wrong")] == [1.0, 0.5, 0.0]
    with pytest.raises(ValueError, match="unknown rating"):
        rating_value("fine")
