from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from parity.engine.tokens import TextEncoder, continuation_spans
from tests.paths import REPO


@pytest.fixture(scope="module")
def tokenizer(tokenizer_dir: Path) -> Any:
    from transformers import AutoTokenizer

    return AutoTokenizer.from_pretrained(tokenizer_dir)


def encoder(tokenizer: Any, add_bos: bool = False) -> TextEncoder:
    return TextEncoder(tokenizer, add_bos=add_bos, prefix_token_id=tokenizer.bos_token_id)


def test_importing_the_engine_loads_neither_torch_nor_transformers_nor_django() -> None:
    code = (
        "import sys, parity.engine, parity.engine.requests, parity.engine.metrics; "
        "print(sorted(m for m in ('torch', 'transformers', 'django') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_engine_sources_never_import_django() -> None:
    for path in (REPO / "parity" / "engine").glob("*.py"):
        assert re.search(r"^\s*(import|from)\s+django", path.read_text(), re.MULTILINE) is None, path


def test_a_leading_space_belongs_to_the_continuation_on_either_side_of_the_boundary(tokenizer: Any) -> None:
    enc = encoder(tokenizer)
    [glued] = continuation_spans(enc, "which means", [" no"])
    [trailing] = continuation_spans(enc, "which means ", ["no"])
    assert glued.tokens == trailing.tokens == tuple(tokenizer(" no", add_special_tokens=False)["input_ids"])
    assert glued.prefix == trailing.prefix == tuple(tokenizer("which means", add_special_tokens=False)["input_ids"])


def test_the_continuation_is_never_tokenized_on_its_own(tokenizer: Any) -> None:
    [span] = continuation_spans(encoder(tokenizer), "which means", [" no"])
    alone = tuple(tokenizer("no", add_special_tokens=False)["input_ids"])
    assert span.tokens != alone  # " no" (with its space) is one token inside the full text


def test_bos_is_added_once_in_front_of_the_full_text_when_the_policy_says_so(tokenizer: Any) -> None:
    [with_bos] = continuation_spans(encoder(tokenizer, add_bos=True), "which means", [" no"])
    [without] = continuation_spans(encoder(tokenizer, add_bos=False), "which means", [" no"])
    assert with_bos.encoded.ids[0] == tokenizer.bos_token_id
    assert with_bos.encoded.ids[1:] == without.encoded.ids
    assert with_bos.tokens == without.tokens
    assert tokenizer.bos_token_id not in without.encoded.ids


def test_an_empty_context_is_conditioned_on_the_prefix_token(tokenizer: Any) -> None:
    [span] = continuation_spans(encoder(tokenizer), "", ["yes no"])
    assert span.prefix == (tokenizer.bos_token_id,)
    assert span.tokens == tuple(tokenizer("yes no", add_special_tokens=False)["input_ids"])


def test_a_token_that_merges_across_the_boundary_is_part_of_the_continuation(tokenizer: Any) -> None:
    [span] = continuation_spans(encoder(tokenizer), "It was unbel", ["ievable"])
    merged = tokenizer.convert_tokens_to_ids("Ġunbelievable")
    assert span.tokens == (merged,)
    assert span.prefix == tuple(tokenizer("It was", add_special_tokens=False)["input_ids"])
