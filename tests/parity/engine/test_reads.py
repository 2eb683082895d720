from __future__ import annotations

import random
from typing import Any

import pytest

from parity.engine import ChoiceRequest, Engine, MultiReadRequest, Read

from .conftest import full_text_logprobs

TOL = 1e-5
INSTRUCTION = "Output 'X' if the sentence contains a [category withheld] and 'Y' otherwise."
SUBJECTS = ["hiker", "bear", "duck", "professor", "student", "hawk"]
PLACES = ["cave", "museum", "canyon", "laboratory", "house", "meadow"]


def episode(seed: int, fmt: str = "arrow", n: int = 20) -> MultiReadRequest:
    """An instruction and n labelled sentences; a read at every label."""
    rng = random.Random(seed)
    text = INSTRUCTION
    reads = []
    for _ in range(n):
        sentence = f"The {rng.choice(SUBJECTS)} is in the {rng.choice(PLACES)}."
        label = rng.choice("XY")
        if fmt == "arrow":
            text += f"\n\n{sentence}\n>"
            reads.append(Read(len(text), ("X", "Y")))
            text += label
        else:
            text += f"\n\nQ: {sentence}\nA:"
            reads.append(Read(len(text), (" X", " Y")))
            text += " " + label
    return MultiReadRequest(f"ep-{fmt}-{seed}", text, tuple(reads))


def prefix_requests(request: MultiReadRequest) -> list[ChoiceRequest]:
    return [
        ChoiceRequest(f"{request.key}-{i}", request.text[: read.offset], read.candidates)
        for i, read in enumerate(request.reads)
    ]


@pytest.mark.parametrize("fmt", ["arrow", "qa"])
def test_one_pass_over_an_episode_equals_twenty_prefix_passes(tiny_lm: Any, fmt: str) -> None:
    request = episode(3, fmt)
    engine = Engine(tiny_lm)
    [result] = engine.score_reads([request])
    separate = Engine(tiny_lm, max_batch_rows=1).score_choices(prefix_requests(request))
    assert len(result.reads) == 20
    for read_result, choice in zip(result.reads, separate):
        assert [s.logprob for s in read_result.scores] == pytest.approx([s.logprob for s in choice.scores], abs=TOL)
        assert [s.n_tokens for s in read_result.scores] == [s.n_tokens for s in choice.scores]
        assert [s.is_greedy for s in read_result.scores] == [s.is_greedy for s in choice.scores]
        assert [s.top_token for s in read_result.scores] == [s.top_token for s in choice.scores]
        assert [s.rank for s in read_result.scores] == [s.rank for s in choice.scores]
        assert [s.top_logprob for s in read_result.scores] == pytest.approx(
            [s.top_logprob for s in choice.scores], abs=TOL
        )
    if fmt == "arrow":
        assert engine.stats.rows == 1  # "X" and "Y" are single tokens: the whole episode is one row


def test_the_label_the_text_holds_is_read_from_the_full_text_tokenization(tiny_lm: Any) -> None:
    request = episode(5, "arrow")
    [result] = Engine(tiny_lm).score_reads([request])
    tokenizer = tiny_lm.tokenizer
    encoding = tokenizer(request.text, add_special_tokens=False, return_offsets_mapping=True)
    ids, offsets = encoding["input_ids"], encoding["offset_mapping"]
    reference = full_text_logprobs(tiny_lm, ids)
    for read, read_result in zip(request.reads, result.reads):
        index = next(i for i, (start, end) in enumerate(offsets) if end > read.offset)
        present = request.text[read.offset]
        score = read_result.scores[read.candidates.index(present)]
        assert score.n_tokens == 1
        assert score.logprob == pytest.approx(reference[index - 1], abs=TOL)


def test_episode_scores_do_not_depend_on_batching_or_order(tiny_lm: Any) -> None:
    requests = [
        episode(seed, fmt, n) for seed, fmt, n in [(1, "arrow", 20), (2, "qa", 7), (3, "arrow", 3), (4, "qa", 20)]
    ]
    expected = Engine(tiny_lm, max_batch_rows=1).score_reads(requests)
    results = Engine(tiny_lm, token_budget=100000).score_reads(list(reversed(requests)))[::-1]
    for want, got in zip(expected, results):
        assert want.key == got.key
        for a, b in zip(want.reads, got.reads):
            assert [s.logprob for s in a.scores] == pytest.approx([s.logprob for s in b.scores], abs=TOL)


def test_a_text_longer_than_the_window_is_read_prefix_by_prefix_and_the_cut_recorded(short_window_lm: Any) -> None:
    request = episode(9, "arrow", n=4)
    [result] = Engine(short_window_lm).score_reads([request])
    separate = Engine(short_window_lm).score_choices(prefix_requests(request))
    assert result.truncated_tokens > 0
    for read_result, choice in zip(result.reads, separate):
        assert [s.logprob for s in read_result.scores] == pytest.approx([s.logprob for s in choice.scores], abs=TOL)


def test_a_read_offset_outside_the_text_is_refused() -> None:
    with pytest.raises(ValueError, match="outside the text"):
        MultiReadRequest("bad", "abc", (Read(4, ("X",)),))
