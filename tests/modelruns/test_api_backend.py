"""The API backend against a stand-in OpenAI-compatible server that serves the same tiny weights
as a local engine: the same numbers, retries, refusals, the cache and the usage counts."""

from __future__ import annotations

import pytest

from parity.engine import ChoiceRequest, Engine, GenerationRequest, MultiReadRequest, Read, ScoreCache, load_causal_lm
from parity.engine.api import PROMPT_LOGPROBS, TOP_LOGPROBS, ApiBackend, ApiConfig, ApiError, retry_after_seconds
from tests.modelruns.api_standin import KEY_ENV, StandIn

CONTEXT = 'Esther asked "Did you like the film?" and Juan responded "It was unbelievable.", which means'
CHOICES = [
    ChoiceRequest("yes-no", CONTEXT, (" yes", " no")),
    ChoiceRequest("long", CONTEXT, (" unbelievable maybe", " no yes no")),
    # the boundary falls inside what the tokenizer merges: scored exactly as the local engine does
    ChoiceRequest("merged", "The hiker is in the cave.\n>", ("X", " X", "Y")),
    ChoiceRequest("space", CONTEXT + " ", ("yes", "no")),
]


@pytest.fixture(scope="module")
def local(tiny_model_dir) -> Engine:
    return Engine(load_causal_lm(str(tiny_model_dir), device="cpu"))


def backend(
    standin: StandIn, cache: ScoreCache | None = None, waits: list[float] | None = None, **options
) -> ApiBackend:
    config = ApiConfig(standin.base_url, standin.name, key_env=KEY_ENV, **options)
    return ApiBackend(config, cache=cache, sleep=(waits.append if waits is not None else lambda _: None))


def assert_same_scores(local_results, api_results) -> None:
    for mine, theirs in zip(local_results, api_results, strict=True):
        assert mine.key == theirs.key
        for a, b in zip(mine.scores, theirs.scores, strict=True):
            assert abs(a.logprob - b.logprob) < 1e-4, (mine.key, a, b)
            assert (a.text, a.n_tokens, a.is_greedy, a.top_token) == (b.text, b.n_tokens, b.is_greedy, b.top_token)
            assert abs(a.top_logprob - b.top_logprob) < 1e-4


def test_echoed_log_likelihoods_agree_with_a_local_run_of_the_same_weights(local, standin):
    api = backend(standin)
    api.check()
    assert PROMPT_LOGPROBS in api.features() and TOP_LOGPROBS in api.features()
    results = api.score_choices(CHOICES)
    assert_same_scores(local.score_choices(CHOICES), results)
    assert all(score.n_tokens > 1 for score in results[1].scores)


def test_multi_reads_agree_with_the_local_single_pass(local, standin):
    text = "The hiker is in the cave.\n>X\n\nThe bear is in the museum.\n>Y\n\nQ: The duck is in the canyon.\nA: X"
    request = MultiReadRequest(
        "episode", text, (Read(text.index(">X") + 1, ("X", "Y", " X")), Read(len(text) - 1, (" X", " Y", "X")))
    )
    mine, theirs = local.score_reads([request])[0], backend(standin).score_reads([request])[0]
    assert [read.offset for read in theirs.reads] == [read.offset for read in mine.reads]
    for a, b in zip(mine.reads, theirs.reads):
        assert_same_scores(
            [type("R", (), {"key": "r", "scores": a.scores})()], [type("R", (), {"key": "r", "scores": b.scores})()]
        )


def test_greedy_generations_are_identical_through_completions(local, standin):
    requests = [
        GenerationRequest("whole", "Instruction: Write the plural form.\nInput: cat\nOutput:", 12, False),
        GenerationRequest("line", "Input: dog\nOutput:", 30, True),
    ]
    mine, theirs = local.generate(requests), backend(standin).generate(requests)
    assert [(g.text, g.stop_reason) for g in theirs] == [(g.text, g.stop_reason) for g in mine]
    assert theirs[0].n_tokens == mine[0].n_tokens == 12


def test_chat_only_servers_generate_through_chat_completions(standin):
    api = backend(standin, features=("chat",))
    result = api.generate([GenerationRequest("chat", "Input: dog\nOutput:", 8, False)])[0]
    assert result.text and standin.count("/v1/chat/completions") == 1 and standin.count("/v1/completions") == 0


def test_429_with_retry_after_and_500_are_retried_and_the_answer_is_the_same(local, standin):
    waits: list[float] = []
    api = backend(
        standin,
        waits=waits,
        features=("completions", "prompt_logprobs", "top_logprobs"),
        backoff_seconds=0.5,
        concurrency=1,
    )
    standin.fail_next(429, times=2, retry_after="3")
    standin.fail_next(500)
    results = api.score_choices(CHOICES[:1])
    assert_same_scores(local.score_choices(CHOICES[:1]), results)
    # the server's Retry-After wins over the backoff; then the backoff doubles from the first try
    assert waits == [3.0, 3.0, 2.0]
    assert api.usage.requests == 2  # the two texts, each answered once


def test_a_persistent_failure_names_the_server_and_the_status(standin):
    api = backend(standin, features=("completions", "prompt_logprobs"), max_retries=2)
    standin.fail_next(503, times=10)
    with pytest.raises(ApiError, match=rf"API server {standin.base_url} \(POST /completions\): HTTP 503"):
        api.score_choices(CHOICES[:1])


def test_a_wrong_key_is_refused_at_once_and_never_shown(standin, monkeypatch):
    monkeypatch.setenv(KEY_ENV, "sk-wrong-secret")
    waits: list[float] = []
    with pytest.raises(ApiError, match="HTTP 401: invalid API key") as raised:
        backend(standin, waits=waits).check()
    assert waits == [] and standin.calls == ["GET /v1/models"]
    assert "sk-wrong-secret" not in str(raised.value)


def test_a_redirect_is_not_followed_so_the_key_reaches_no_other_address(standin):
    """An allowed server answering 302 to another host must not get the key sent there."""
    import http.server
    import threading

    seen: list[str] = []

    class Elsewhere(http.server.BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802
            seen.append(self.headers.get("Authorization") or "")
            self.send_response(200)
            self.end_headers()
            self.wfile.write(b'{"data": []}')

        do_POST = do_GET  # noqa: N815

        def log_message(self, *args):
            pass

    elsewhere = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Elsewhere)
    threading.Thread(target=elsewhere.serve_forever, daemon=True).start()

    class Redirecting(http.server.BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802
            self.send_response(302)
            self.send_header("Location", f"http://127.0.0.1:{elsewhere.server_port}/steal")
            self.end_headers()

        do_POST = do_GET  # noqa: N815

        def log_message(self, *args):
            pass

    redirecting = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Redirecting)
    threading.Thread(target=redirecting.serve_forever, daemon=True).start()
    try:
        api = ApiBackend(ApiConfig(f"http://127.0.0.1:{redirecting.server_port}/v1", standin.name, key_env=KEY_ENV))
        with pytest.raises(ApiError, match=r"HTTP 302: redirected to .* \(not followed"):
            api.check()
        assert seen == []
    finally:
        redirecting.shutdown()
        elsewhere.shutdown()


def test_a_missing_key_variable_is_a_clear_error_before_any_request(standin, monkeypatch):
    monkeypatch.delenv(KEY_ENV)
    with pytest.raises(ApiError, match=f"environment variable {KEY_ENV}, which holds the API key for "):
        backend(standin).check()
    assert standin.calls == []


def test_an_unknown_model_is_named_with_what_the_server_serves(standin):
    api = ApiBackend(ApiConfig(standin.base_url, "gpt-nothing", key_env=KEY_ENV))
    with pytest.raises(ApiError, match="does not serve 'gpt-nothing' \\(it serves tiny-llama\\)"):
        api.check()


def test_without_prompt_logprobs_a_top_k_readout_scores_single_tokens_and_refuses_longer_ones(local, standin):
    standin.prompt_logprobs = False
    vocabulary = len(local.model.tokenizer)
    api = backend(standin, top_k=vocabulary)
    api.check()
    assert PROMPT_LOGPROBS not in api.features() and TOP_LOGPROBS in api.features()
    assert_same_scores(local.score_choices(CHOICES[:1]), api.score_choices(CHOICES[:1]))
    with pytest.raises(
        ApiError,
        match="' unbelievable maybe' is not among the .* most likely next tokens.*"
        "needs a server with prompt log-probabilities",
    ):
        api.score_choices(CHOICES[1:2])


def test_ranks_come_from_the_listed_tokens_and_are_unknown_below_them(local, standin):
    mine = local.score_choices(CHOICES[:1] + CHOICES[2:3])
    # echoed with logprobs=1: the top token alone is listed, so only rank 1 is known
    echoed = backend(standin).score_choices(CHOICES[:1] + CHOICES[2:3])
    for a, b in zip(mine, echoed):
        assert [s.rank if s.rank == 1 else None for s in a.scores] == [s.rank for s in b.scores]
    # a readout lists the top k by text: a rank among them, where tokens that print alike (byte
    # fragments, special tokens) count once, so never above the local rank and exact near the top
    standin.prompt_logprobs = False
    vocabulary = len(local.model.tokenizer)
    readout = backend(standin, top_k=vocabulary).score_choices([ChoiceRequest("top", CONTEXT, (" yes", " no"))])
    tops = local.score_choices([ChoiceRequest("top", CONTEXT, (" yes", " no"))])
    for a, b in zip(tops[0].scores, readout[0].scores):
        assert 1 <= b.rank <= a.rank
    first = local.score_choices([ChoiceRequest("first", CONTEXT, (tops[0].scores[0].top_token,))])[0].scores[0]
    via_api = backend(standin, top_k=4).score_choices([ChoiceRequest("first", CONTEXT, (first.text,))])[0].scores[0]
    assert first.rank == via_api.rank == 1


def test_a_server_without_any_logprobs_refuses_choices_but_still_generates(standin):
    standin.prompt_logprobs, standin.logprobs = False, False
    api = backend(standin)
    with pytest.raises(
        ApiError, match="scoring continuations needs prompt log-probabilities .* offers completions, chat"
    ):
        api.score_choices(CHOICES[:1])
    assert api.generate([GenerationRequest("g", "Input: dog\nOutput:", 5, True)])[0].n_tokens >= 1


def test_the_cache_answers_a_second_backend_without_http_requests(standin, tmp_path):
    first = backend(standin, cache=ScoreCache(tmp_path), features=("completions", "prompt_logprobs", "top_logprobs"))
    generation = [GenerationRequest("g", "Input: dog\nOutput:", 6, False)]
    expected = first.score_choices(CHOICES), first.generate(generation)
    calls = len(standin.calls)
    second = backend(standin, cache=ScoreCache(tmp_path), features=("completions", "prompt_logprobs", "top_logprobs"))
    assert (second.score_choices(CHOICES), second.generate(generation)) == expected
    assert len(standin.calls) == calls and second.usage.requests == 0
    # another server with the same model name is another provider: no answer of the first is reused
    other = ApiBackend(
        ApiConfig(
            standin.base_url.replace("127.0.0.1", "localhost"),
            standin.name,
            key_env=KEY_ENV,
            features=("completions", "prompt_logprobs"),
        ),
        cache=ScoreCache(tmp_path),
    )
    other.score_choices(CHOICES[:1])
    assert len(standin.calls) == calls + 2


def test_usage_is_the_sum_of_what_the_server_counted(standin):
    api = backend(standin, features=("completions", "prompt_logprobs"))
    api.score_choices(CHOICES[:1])
    tokenizer = standin.loaded.tokenizer
    prompt = sum(
        len(tokenizer(CONTEXT + c, add_special_tokens=False)["input_ids"]) + standin.loaded.add_bos
        for c in (" yes", " no")
    )
    assert (api.usage.prompt_tokens, api.usage.completion_tokens, api.usage.requests) == (prompt, 2, 2)


def test_only_api_key_variables_may_be_named_and_urls_must_be_http():
    for name in ("DATABASE_URL", "DJANGO_SECRET_KEY", "openai_api_key", "PATH"):
        with pytest.raises(ValueError, match="named like OPENAI_API_KEY"):
            ApiConfig("http://127.0.0.1:8000/v1", "m", key_env=name)
    with pytest.raises(ValueError, match="must start with http"):
        ApiConfig("file:///etc/passwd", "m")
    assert ApiConfig("https://api.openai.com/v1/", "m", key_env="OPENAI_API_KEY").server == "https://api.openai.com/v1"


def test_retry_after_takes_seconds_or_an_http_date():
    assert retry_after_seconds("2.5") == 2.5
    assert retry_after_seconds("Wed, 21 Oct 2015 07:28:00 GMT") == 0.0  # in the past: at once
    assert retry_after_seconds(None) is None and retry_after_seconds("soon") is None


def test_offsets_that_do_not_match_the_prompt_are_refused_instead_of_misread():
    from parity.engine.api.protocol import Echoed, continuation_score

    text = "caf\u00e9 means yes"
    # a server that counts a two-token character twice shifts every later offset by one
    shifted = Echoed(
        text,
        ("caf", "\ufffd", "\ufffd", " means", " yes"),
        (None, -1.0, -1.0, -2.0, -3.0),
        (0, 3, 4, 5, 11),
        (None, {"x": -1.0}, {"x": -1.0}, {"x": -1.0}, {"x": -1.0}),
    )
    with pytest.raises(ApiError, match="text offsets that do not match the prompt"):
        continuation_score("http://server/v1", shifted, len("caf\u00e9 means"), " yes")
    right = Echoed(
        text,
        ("caf", "bytes:\\xc3", "bytes:\\xa9", " means", " yes"),
        (None, -1.0, -1.0, -2.0, -3.0),
        (0, 3, 3, 4, 10),
        (None, {"x": -1.0}, {"x": -1.0}, {"x": -1.0}, {" yes": -3.0}),
    )
    score = continuation_score("http://server/v1", right, len("caf\u00e9 means"), " yes")
    assert (score.logprob, score.n_tokens, score.is_greedy, score.top_token) == (-3.0, 1, True, " yes")


def test_no_more_requests_are_in_flight_than_the_concurrency_limit(standin):
    texts = [ChoiceRequest(f"r{i}", f"{CONTEXT} {i}", (" yes", " no", " maybe")) for i in range(8)]
    backend(standin, features=("completions", "prompt_logprobs"), concurrency=1).score_choices(texts[:4])
    assert standin.most_in_flight == 1
    backend(standin, features=("completions", "prompt_logprobs"), concurrency=3).score_choices(texts[4:])
    assert 1 < standin.most_in_flight <= 3


def test_a_printed_bos_whose_characters_the_server_counted_is_taken_back_out():
    from parity.engine.api.protocol import continuation_score, echoed

    text = "it means yes"
    choice = {
        "logprobs": {
            "tokens": ["<s>", "it", " means", " yes", "!"],
            "token_logprobs": [None, -1.0, -2.0, -3.0, -4.0],
            "text_offset": [0, 3, 5, 11, 15],
            "top_logprobs": [None, {"a": -0.5}, {"b": -0.5}, {" yes": -3.0}, {"!": -4.0}],
        }
    }
    echo = echoed("http://server/v1", text, choice)
    assert echo.tokens == ("", "it", " means", " yes") and echo.offsets == (0, 0, 2, 8)
    score = continuation_score("http://server/v1", echo, len("it means"), " yes")
    assert (score.logprob, score.n_tokens, score.is_greedy) == (-3.0, 1, True)


def test_a_prompt_beyond_the_server_s_window_fails_with_its_message_and_is_not_retried(standin):
    waits: list[float] = []
    api = backend(standin, waits=waits, features=("completions", "prompt_logprobs"))
    long = ChoiceRequest("long", "unbelievable " * 600, (" yes", " no"))
    with pytest.raises(ApiError, match=r"HTTP 400: This model's maximum context length is 512 tokens"):
        api.score_choices([long])
    assert waits == []
