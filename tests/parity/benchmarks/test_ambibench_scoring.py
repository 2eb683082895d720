"""How a model's AmbiBench answer is read from its next-token probabilities at a label: both
spellings of a label merged, exactly (the default) or as the authors saw them, among the API's
top 4 tokens (kunhanda/task_ambiguity, commit 1667ceb: `logprobs=4` in api_access.py, then
`MetricWrangler.check_accuracy` after `combine_keys` in metric_wrangler.py); and a tie is wrong."""

from __future__ import annotations

import math
from dataclasses import dataclass

import pytest

from parity.benchmarks import get
from parity.benchmarks.ambibench.model import spellings
from parity.benchmarks.base import ItemData


@dataclass(frozen=True)
class Score:
    logprob: float
    top_logprob: float
    top_token: str
    rank: int | None
    n_tokens: int = 1


@dataclass(frozen=True)
class Choice:
    scores: tuple[Score, ...]
    truncated_tokens: int = 0


@pytest.fixture(scope="module")
def instruction_items() -> dict[str, ItemData]:
    items = get("ambibench").load(None, {"episodes": 1, "instruction_prompts": 4}).items
    return {gold: next(item for item in items if item.split == "instruction" and item.gold == gold) for gold in "XY"}


def _scores(table: dict[str, float], fmt: str = "arrow") -> tuple[Score, ...]:
    """A model's next tokens (percent; the rest of the vocabulary far below) as the engine reports
    them for each spelling: its log-probability and rank, and the top token."""
    top = max(table, key=table.get)
    return tuple(
        Score(
            math.log(table.get(text, 1e-6) / 100),
            math.log(table[top] / 100),
            top,
            1 + sum(value > table.get(text, 1e-6) for value in table.values()),
        )
        for text in spellings(fmt)
    )


def _answer(item: ItemData, scores: tuple[Score, ...], topk: str, fmt: str = "arrow"):
    definition = get("ambibench")
    setting = definition.model_setting({"format": fmt, "topk": topk})
    return definition.model_answers([item], setting, {item.key: Choice(scores)})[item.key]


# (next-token table in percent, gold, the exact rule's answer, the top-4 rule's answer); the
# authors' check_accuracy on each table's top 4 gives the top-4 verdicts: A 0, B 1, C 0 ("\n"), D 1.
CASES = {
    # X's spellings rank 5 and 6: outside the top 4 they count 0, though together they beat Y
    "A": ({"X": 18, " X": 17, "Y": 30, "\n": 20, "Z": 19, " the": 18.5}, "X", "X", "Y"),
    # " Y" ranks 5th: the authors merge X's two spellings (40) against Y's one (35)
    "B": ({" X": 30, "X": 10, "Y": 35, "\n": 12, " Y": 6}, "X", "Y", "X"),
    # the top token is no label and outweighs both: invalid, by either rule
    "C": ({"\n": 50, "X": 30, " X": 10, "Y": 5, " Y": 1}, "X", "\n", "\n"),
    # " X" ranks 5th; Y wins either way
    "D": ({"Y": 40, " Y": 12, "X": 30, "Z": 11.5, " X": 11}, "Y", "Y", "Y"),
}


@pytest.mark.parametrize("case", sorted(CASES))
@pytest.mark.parametrize("topk", ["exact", "top4"])
def test_the_label_is_read_exactly_or_among_the_top_4_as_the_authors_did(instruction_items, case, topk):
    table, gold, exact, top4 = CASES[case]
    said = exact if topk == "exact" else top4
    answer = _answer(instruction_items[gold], _scores(table), topk)
    assert answer.raw_answer == said
    assert answer.valid == (said in ("X", "Y"))
    assert answer.correct == (said == gold)
    assert answer.answer == (said if answer.valid else "")


def test_a_spelling_outside_the_top_4_counts_0_and_the_merge_is_among_the_top_4_only(instruction_items):
    a = _answer(instruction_items["X"], _scores(CASES["A"][0]), "top4")
    assert a.scores["p_top4"] == {"X": 0.0, "Y": pytest.approx(0.30)}
    assert a.scores["ranks"] == {"X": 5, "Y": 1, " X": 6, " Y": 7}
    b = _answer(instruction_items["X"], _scores(CASES["B"][0]), "top4")
    assert b.scores["p_top4"] == {"X": pytest.approx(0.40), "Y": pytest.approx(0.35)}
    # p_correct stays the exact merged probability, whichever rule answers
    assert a.scores["p_correct"] == pytest.approx(0.35) and b.scores["p_correct"] == pytest.approx(0.40)


def test_a_spelling_of_two_tokens_is_never_among_the_top_tokens(instruction_items):
    scores = list(_scores({"X": 20, " X": 30, "Y": 35, "\n": 5}))
    scores[2] = Score(scores[2].logprob, scores[2].top_logprob, scores[2].top_token, rank=2, n_tokens=2)  # " X"
    answer = _answer(instruction_items["X"], tuple(scores), "top4")
    assert answer.scores["p_top4"]["X"] == pytest.approx(0.20) and answer.raw_answer == "Y"


def test_the_top_4_rule_needs_ranks_and_says_so(instruction_items):
    scores = tuple(Score(s.logprob, s.top_logprob, s.top_token, None) for s in _scores(CASES["A"][0]))
    with pytest.raises(ValueError, match="top-4 rule needs each label's rank"):
        _answer(instruction_items["X"], scores, "top4")
    assert _answer(instruction_items["X"], scores, "exact").raw_answer == "X"  # exact needs none


@pytest.mark.parametrize("topk", ["exact", "top4"])
@pytest.mark.parametrize("gold", ["X", "Y"])
def test_a_tie_between_x_and_y_is_wrong(instruction_items, topk, gold):
    # X and Y each at 30% + 10%, spellings swapped: the same two numbers added in another order
    high, low = math.log(0.30), math.log(0.10)
    by_text = {"X": high, "Y": low, " X": low, " Y": high}
    scores = tuple(Score(by_text[text], high, "X", 1 if by_text[text] == high else 3) for text in spellings("arrow"))
    answer = _answer(instruction_items[gold], scores, topk)
    assert (answer.answer, answer.raw_answer, answer.valid, answer.correct) == ("", "tie", False, False)


@pytest.mark.parametrize("topk", ["exact", "top4"])
def test_a_tie_between_a_label_and_another_token_is_wrong(instruction_items, topk):
    # "\n" and "X" both at 40%; X's other spelling and Y negligible
    top = math.log(0.40)
    by_text = {"X": top, "Y": math.log(0.05), " X": -1000.0, " Y": -1000.0}
    ranks = {"X": 1, "Y": 3, " X": 300, " Y": 301}
    scores = tuple(Score(by_text[text], top, "\n", ranks[text]) for text in spellings("arrow"))
    answer = _answer(instruction_items["X"], scores, topk)
    assert (answer.answer, answer.raw_answer, answer.valid, answer.correct) == ("", "tie", False, False)


def test_the_run_form_offers_the_rule_with_exact_as_the_default():
    definition = get("ambibench")
    assert definition.model_setting()["topk"] == "exact"
    [option] = [option for option in definition.model_setting_options if option.key == "topk"]
    assert [value for value, _ in option.choices] == ["exact", "top4"]
    with pytest.raises(ValueError, match="topk must be one of exact, top4"):
        definition.model_setting({"topk": "top5"})
    assert definition.model_setting_label(definition.model_setting({"format": "qa"})) == "format=qa"
    assert definition.model_setting_label(definition.model_setting({"topk": "top4"})) == "format=item, topk=top4"
