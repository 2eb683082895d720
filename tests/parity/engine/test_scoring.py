from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest

from parity.engine import ChoiceRequest, Engine, ScoreCache
from parity.engine.tokens import TextEncoder, continuation_spans

from .conftest import full_text_logprobs

TOL = 1e-5


def implicature_requests(n: int = 12) -> list[ChoiceRequest]:
    rng = random.Random(7)
    words = ["party", "film", "work", "cake", "train", "museum", "late", "the", "cave", "dog"]
    requests = []
    for i in range(n):
        utterance = " ".join(rng.choice(words) for _ in range(rng.randint(2, 12)))
        response = " ".join(rng.choice(words) for _ in range(rng.randint(1, 9)))
        context = (
            f'Finish the following text:\n\nEsther asked "{utterance}?" and Juan responded "{response}.", which means'
        )
        requests.append(ChoiceRequest(f"imp-{i}", context, (" yes", " no")))
    return requests


def mixed_requests() -> list[ChoiceRequest]:
    return implicature_requests(6) + [
        ChoiceRequest(
            "miqa-1",
            'Q: "my friend has a loud voice". Which of the following two statements could that imply? (1) a (2) b A:',
            (" my friend needs space", " the professor is in the cave"),
        ),
        ChoiceRequest("ab-1", "Options: A or B. Answer:", (" A", " B", " maybe not")),
        ChoiceRequest("merge", "It was unbel", ("ievable", "ief")),
        ChoiceRequest("empty", "", ("yes no", "no")),
    ]


def as_numbers(results: list[Any]) -> list[list[float]]:
    return [[score.logprob for score in result.scores] for result in results]


def assert_close(left: list[list[float]], right: list[list[float]], tol: float = TOL) -> None:
    assert len(left) == len(right)
    for a, b in zip(left, right):
        assert a == pytest.approx(b, abs=tol)


def test_a_yes_no_pair_costs_one_row_and_equals_comparing_the_two_full_texts(tiny_lm: Any) -> None:
    engine = Engine(tiny_lm)
    requests = implicature_requests()
    results = engine.score_choices(requests)
    assert engine.stats.rows == len(requests)  # one shared-prefix row per pair
    encoder = TextEncoder(tiny_lm.tokenizer, add_bos=tiny_lm.add_bos, prefix_token_id=tiny_lm.prefix_token_id)
    for request, result in zip(requests, results):
        spans = continuation_spans(encoder, request.context, request.continuations)
        totals = [sum(full_text_logprobs(tiny_lm, list(span.encoded.ids))) for span in spans]
        # both texts share every token but the last, so the difference is exactly the pair's
        assert result.scores[0].logprob - result.scores[1].logprob == pytest.approx(totals[0] - totals[1], abs=TOL)
        for span, score in zip(spans, result.scores):
            expected = full_text_logprobs(tiny_lm, list(span.encoded.ids))[-1]
            assert score.logprob == pytest.approx(expected, abs=TOL)
            assert score.n_tokens == 1


def test_multi_token_continuations_are_scored_token_by_token_in_their_own_rows(tiny_lm: Any) -> None:
    engine = Engine(tiny_lm)
    request = ChoiceRequest("miqa", "Q: which could that imply? A:", (" my friend needs space", " a hammer", " no"))
    [result] = engine.score_choices([request])
    assert engine.stats.rows == 2  # " no" (one token) rides along on the first multi-token row
    encoder = TextEncoder(tiny_lm.tokenizer, add_bos=tiny_lm.add_bos, prefix_token_id=tiny_lm.prefix_token_id)
    for span, score in zip(continuation_spans(encoder, request.context, request.continuations), result.scores):
        reference = full_text_logprobs(tiny_lm, list(span.encoded.ids))[span.start - 1 :]
        assert score.n_tokens == len(span.tokens) == len(reference)
        assert score.logprob == pytest.approx(sum(reference), abs=TOL)


def test_a_merged_first_token_compares_like_the_full_texts(tiny_lm: Any) -> None:
    request = ChoiceRequest("merge", "It was unbel", ("ievable", "ief"))
    [result] = Engine(tiny_lm).score_choices([request])
    encoder = TextEncoder(tiny_lm.tokenizer, add_bos=tiny_lm.add_bos, prefix_token_id=tiny_lm.prefix_token_id)
    spans = continuation_spans(encoder, request.context, request.continuations)
    assert spans[0].prefix == spans[1].prefix
    totals = [sum(full_text_logprobs(tiny_lm, list(span.encoded.ids))) for span in spans]
    assert result.scores[0].logprob - result.scores[1].logprob == pytest.approx(totals[0] - totals[1], abs=TOL)


@pytest.mark.parametrize(
    "budget,max_rows,max_padding", [(16, 1, 1.0), (64, 3, 0.1), (200, 5, 1.0), (100000, 64, 1.0), (100000, 64, 0.0)]
)
def test_scores_do_not_depend_on_batching_padding_or_request_order(
    tiny_lm: Any, budget: int, max_rows: int, max_padding: float
) -> None:
    requests = mixed_requests()
    reference = as_numbers(Engine(tiny_lm, token_budget=10**6, max_batch_rows=1).score_choices(requests))
    shuffled = list(range(len(requests)))
    random.Random(budget).shuffle(shuffled)
    engine = Engine(tiny_lm, token_budget=budget, max_batch_rows=max_rows, max_padding=max_padding)
    results = engine.score_choices([requests[i] for i in shuffled])
    assert [r.key for r in results] == [requests[i].key for i in shuffled]
    assert_close(as_numbers(results), [reference[i] for i in shuffled])


def test_all_logits_path_matches_the_kept_positions_path(tiny_lm: Any) -> None:
    requests = mixed_requests()
    fast = Engine(tiny_lm)
    expected = as_numbers(fast.score_choices(requests))
    slow = Engine(tiny_lm)
    slow._scores([], [], None)  # builds the runner
    assert slow._runner is not None
    slow._runner._keep_mask = False
    slow._runner._share_prefix = False
    assert_close(as_numbers(slow.score_choices(requests)), expected)


def test_running_a_shared_prefix_once_gives_the_same_scores(tiny_lm: Any) -> None:
    requests = implicature_requests(8)
    shared = Engine(tiny_lm, token_budget=10**6)
    expected = as_numbers(shared.score_choices(requests))
    assert shared.stats.shared_prefix_tokens > 0  # every prompt opens with the same instruction
    whole = Engine(tiny_lm, token_budget=10**6)
    whole._scores([], [], None)
    assert whole._runner is not None
    whole._runner._share_prefix = False
    assert_close(as_numbers(whole.score_choices(requests)), expected)
    assert whole.stats.shared_prefix_tokens == 0


def test_is_greedy_says_whether_every_token_is_the_argmax(tiny_lm: Any) -> None:
    import torch

    tokenizer = tiny_lm.tokenizer
    requests = []
    for context in ("The hiker is in the", "Output 'X' if", "Juan responded", "It was", "Q: The duck"):
        ids = tokenizer(context, add_special_tokens=False)["input_ids"]
        generated: list[int] = []
        with torch.no_grad():
            for _ in range(2):
                logits = tiny_lm.model(input_ids=torch.tensor([ids + generated])).logits[0, -1]
                generated.append(int(logits.argmax()))
        text = tokenizer.decode(generated)
        if tokenizer(context + text, add_special_tokens=False)["input_ids"] == ids + generated:
            requests.append(ChoiceRequest(context, context, (text, " no", text + " yes")))
    assert requests, "no greedy continuation survived re-tokenization"
    for request, result in zip(requests, Engine(tiny_lm).score_choices(requests)):
        assert result.scores[0].is_greedy  # built token by token from the argmax
        encoder = TextEncoder(tiny_lm.tokenizer, add_bos=False, prefix_token_id=tiny_lm.prefix_token_id)
        for span, score in zip(continuation_spans(encoder, request.context, request.continuations), result.scores):
            with torch.no_grad():
                logits = tiny_lm.model(input_ids=torch.tensor([list(span.encoded.ids)])).logits[0]
            argmax = [int(logits[p].argmax()) for p in range(span.start - 1, span.end - 1)]
            assert score.is_greedy == (tuple(argmax) == span.tokens)


def test_each_score_carries_the_models_top_token_where_the_continuation_starts(tiny_lm: Any) -> None:
    import torch

    requests = mixed_requests()
    encoder = TextEncoder(tiny_lm.tokenizer, add_bos=tiny_lm.add_bos, prefix_token_id=tiny_lm.prefix_token_id)
    for request, result in zip(requests, Engine(tiny_lm).score_choices(requests)):
        for span, score in zip(continuation_spans(encoder, request.context, request.continuations), result.scores):
            with torch.no_grad():
                logits = tiny_lm.model(input_ids=torch.tensor([list(span.encoded.ids)])).logits[0, span.start - 1]
            logprobs = torch.log_softmax(logits.float(), dim=-1)
            assert score.top_token == tiny_lm.tokenizer.decode([int(logprobs.argmax())])
            assert score.top_logprob == pytest.approx(float(logprobs.max()), abs=TOL)
            assert score.top_logprob >= score.logprob - TOL


def test_each_score_carries_the_rank_of_its_first_token_among_the_models_next_tokens(tiny_lm: Any) -> None:
    import torch

    requests = mixed_requests()
    encoder = TextEncoder(tiny_lm.tokenizer, add_bos=tiny_lm.add_bos, prefix_token_id=tiny_lm.prefix_token_id)
    ranks = []
    for request, result in zip(requests, Engine(tiny_lm).score_choices(requests)):
        for span, score in zip(continuation_spans(encoder, request.context, request.continuations), result.scores):
            with torch.no_grad():
                logits = tiny_lm.model(input_ids=torch.tensor([list(span.encoded.ids)])).logits[0, span.start - 1]
            logprobs = torch.log_softmax(logits.float(), dim=-1)
            first = float(logprobs[span.tokens[0]])
            # 1 + the tokens strictly likelier (a separate forward pass: allow for rounding)
            assert int((logprobs > first + TOL).sum()) + 1 <= score.rank <= int((logprobs > first - TOL).sum()) + 1
            assert (score.rank == 1) == (score.top_logprob <= first + TOL)
            ranks.append(score.rank)
    assert max(ranks) > 4  # some continuation lies outside an API's top 4


def test_scores_cached_by_an_older_engine_version_are_not_reused(tiny_lm: Any, tmp_path: Path, monkeypatch) -> None:
    from parity.engine import cache

    requests = implicature_requests(3)
    monkeypatch.setattr(cache, "ENGINE_VERSION", "1")
    Engine(tiny_lm, cache=tmp_path / "cache").score_choices(requests)
    monkeypatch.undo()
    engine = Engine(tiny_lm, cache=tmp_path / "cache")
    results = engine.score_choices(requests)
    assert engine.stats.cache_hits == 0 and engine.stats.rows_run == engine.stats.rows
    assert all(score.top_token is not None for result in results for score in result.scores)


def test_a_context_longer_than_the_window_is_cut_on_the_left_and_the_cut_recorded(short_window_lm: Any) -> None:
    long_context = "The hiker is in the cave. " * 6 + "which means"
    short = ChoiceRequest("short", "which means", (" yes", " no"))
    long = ChoiceRequest("long", long_context, (" yes", " no"))
    engine = Engine(short_window_lm)
    short_result, long_result = engine.score_choices([short, long])
    assert short_result.truncated_tokens == 0
    n_tokens = len(short_window_lm.tokenizer(long_context, add_special_tokens=False)["input_ids"])
    assert long_result.truncated_tokens == n_tokens - short_window_lm.max_length
    # the same as scoring the kept tokens directly
    ids = short_window_lm.tokenizer(long_context + " yes", add_special_tokens=False)["input_ids"]
    kept = ids[-(short_window_lm.max_length + 1) :]
    assert long_result.scores[0].logprob == pytest.approx(full_text_logprobs(short_window_lm, kept)[-1], abs=TOL)


def test_a_continuation_that_cannot_fit_the_window_is_refused(short_window_lm: Any) -> None:
    with pytest.raises(ValueError, match="exceed the model window"):
        Engine(short_window_lm).score_choices([ChoiceRequest("x", "a", (" yes" * 40,))])


def test_a_cache_hit_returns_the_identical_scores_without_running_the_model(tiny_lm: Any, tmp_path: Path) -> None:
    requests = mixed_requests()
    first = Engine(tiny_lm, cache=tmp_path / "cache")
    expected = first.score_choices(requests)
    assert first.stats.cache_hits == 0 and first.stats.rows_run == first.stats.rows
    second = Engine(tiny_lm, cache=ScoreCache(tmp_path / "cache"), token_budget=32)
    again = second.score_choices(list(reversed(requests)))
    assert second.stats.rows_run == 0 and second.stats.cache_hits == second.stats.rows
    assert list(reversed(again)) == expected  # exactly equal, floats included


def test_progress_reports_every_request_once_finished(tiny_lm: Any) -> None:
    seen: list[tuple[int, int]] = []
    requests = mixed_requests()
    Engine(tiny_lm, token_budget=64, progress=lambda done, total: seen.append((done, total))).score_choices(requests)
    assert seen[-1] == (len(requests), len(requests))
    assert [done for done, _ in seen] == sorted(done for done, _ in seen)


def test_bf16_scores_stay_close_to_fp32(llama_dir: Path, model_cache: Path, tiny_lm: Any) -> None:
    from parity.engine import load_causal_lm

    bf16 = load_causal_lm(str(llama_dir), dtype="bf16", cache_dir=model_cache)
    assert bf16.identity.dtype == "bfloat16" and bf16.identity.revision == tiny_lm.identity.revision
    requests = implicature_requests(4)
    assert_close(
        as_numbers(Engine(bf16).score_choices(requests)), as_numbers(Engine(tiny_lm).score_choices(requests)), tol=0.2
    )
