"""The engine against lm-evaluation-harness's HFLM on the same tiny model and requests."""

from __future__ import annotations

from typing import Any

import pytest

from parity.engine import ChoiceRequest, Engine

from .test_reads import episode, prefix_requests
from .test_scoring import implicature_requests


def lm_eval_scores(loaded: Any, requests: list[ChoiceRequest], **options: Any) -> list[list[tuple[float, bool]]]:
    from lm_eval.api.instance import Instance
    from lm_eval.models.huggingface import HFLM

    lm = HFLM(
        pretrained=loaded.model, tokenizer=loaded.tokenizer, device="cpu", add_bos_token=loaded.add_bos, **options
    )
    instances = [
        Instance("loglikelihood", {}, (r.context, c), i) for i, r in enumerate(requests) for c in r.continuations
    ]
    flat = lm.loglikelihood(instances, disable_tqdm=True)
    out, cursor = [], 0
    for request in requests:
        out.append([(float(lp), bool(g)) for lp, g in flat[cursor : cursor + len(request.continuations)]])
        cursor += len(request.continuations)
    return out


def parity_requests() -> list[ChoiceRequest]:
    requests = implicature_requests(10)
    requests += prefix_requests(episode(11, "arrow", 6)) + prefix_requests(episode(12, "qa", 4))
    requests += [
        ChoiceRequest(
            "miqa",
            'Q: "my friend has a loud voice". Which of the following two statements could that imply? (1) a (2) b A:',
            (" my friend needs space", " the professor is in the cave"),
        ),
        ChoiceRequest("space", "which means ", ("yes", "no")),
    ]
    return requests


@pytest.mark.parametrize("batch_size", [1, 8])
def test_log_probs_match_lm_eval_within_1e_4_with_no_decision_flip(tiny_lm: Any, batch_size: int) -> None:
    requests = parity_requests()
    theirs = lm_eval_scores(tiny_lm, requests, batch_size=batch_size, softmax_dtype="float32")
    ours = Engine(tiny_lm).score_choices(requests)
    flips = 0
    for their, our in zip(theirs, ours):
        values = [score.logprob for score in our.scores]
        assert values == pytest.approx([lp for lp, _ in their], abs=1e-4)
        assert [score.is_greedy for score in our.scores] == [greedy for _, greedy in their]
        their_values = [lp for lp, _ in their]
        flips += values.index(max(values)) != their_values.index(max(their_values))
    assert flips == 0
