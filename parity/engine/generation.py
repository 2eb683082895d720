"""Greedy batched generation with the instruction-induction stop rule.

Prompts are left-padded (generation appends on the right), sorted by length and batched by a
token budget. A row stops at EOS, at its own `max_new_tokens`, or, with `stop_at_newline`, once its
first line is settled for the instruction-induction normalisation (a newline between non-blank
text, `metrics.first_line_settled`); the stop is applied per row, and the batch ends when every
row has stopped. The text is returned whole; the metrics keep its first line.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from .loading import LoadedModel
from .metrics import first_line_settled
from .requests import GenerationRequest


@dataclass(frozen=True)
class PreparedPrompt:
    ids: tuple[int, ...]
    truncated: int


@dataclass(frozen=True)
class Generated:
    text: str
    raw_text: str
    n_tokens: int
    stop_reason: str

    def as_json(self) -> dict[str, Any]:
        return {
            "text": self.text,
            "raw_text": self.raw_text,
            "n_tokens": self.n_tokens,
            "stop_reason": self.stop_reason,
        }


def prepare_prompts(loaded: LoadedModel, requests: Sequence[GenerationRequest]) -> list[PreparedPrompt]:
    """Prompt ids under the model's BOS policy, cut on the left so the answer fits the window."""
    tokenizer = loaded.tokenizer
    if loaded.kind == "seq2seq":
        encoded = tokenizer([r.prompt for r in requests], add_special_tokens=True)["input_ids"]
    else:
        encoded = tokenizer([r.prompt for r in requests], add_special_tokens=False)["input_ids"]
        if loaded.add_bos and tokenizer.bos_token_id is not None:
            encoded = [[tokenizer.bos_token_id, *ids] for ids in encoded]
    prepared = []
    for request, ids in zip(requests, encoded):
        if not ids:
            ids = [loaded.prefix_token_id]
        room = loaded.max_length if loaded.kind == "seq2seq" else loaded.max_length - request.max_new_tokens
        if room < 1:
            raise ValueError(
                f"{request.key}: max_new_tokens={request.max_new_tokens} leaves no room in a window "
                f"of {loaded.max_length}"
            )
        cut = max(0, len(ids) - room)
        prepared.append(PreparedPrompt(tuple(ids[cut:]), cut))
    return prepared


def _stop_criteria(tokenizer: Any, start: int, limits: Sequence[int], newline: Sequence[bool], eos: set[int]) -> Any:
    import torch
    from transformers import StoppingCriteria

    class _PerRowStop(StoppingCriteria):
        """Marks a row done at its own length limit or once its first line is settled."""

        def __init__(self) -> None:
            self.finished_at: list[int | None] = [None] * len(limits)

        def __call__(self, input_ids: Any, scores: Any, **kwargs: Any) -> Any:
            done = []
            for row in range(input_ids.shape[0]):
                if self.finished_at[row] is None:
                    new = input_ids[row, start:].tolist()
                    if new and new[-1] in eos:
                        self.finished_at[row] = len(new)
                    elif len(new) >= limits[row]:
                        self.finished_at[row] = limits[row]
                    elif newline[row] and first_line_settled(tokenizer.decode(new, skip_special_tokens=True)):
                        self.finished_at[row] = len(new)
                done.append(self.finished_at[row] is not None)
            return torch.tensor(done, dtype=torch.bool, device=input_ids.device)

    return _PerRowStop()


def generate_batch(
    loaded: LoadedModel, prompts: Sequence[PreparedPrompt], requests: Sequence[GenerationRequest]
) -> list[Generated]:
    import torch
    from transformers import StoppingCriteriaList

    tokenizer = loaded.tokenizer
    pad = loaded.pad_token_id
    width = max(len(p.ids) for p in prompts)
    causal = loaded.kind == "causal"
    input_ids = torch.full((len(prompts), width), pad, dtype=torch.long)
    attention = torch.zeros((len(prompts), width), dtype=torch.long)
    for row, prompt in enumerate(prompts):
        if causal:  # left padding: every prompt ends where generation starts
            input_ids[row, width - len(prompt.ids) :] = torch.tensor(prompt.ids)
            attention[row, width - len(prompt.ids) :] = 1
        else:
            input_ids[row, : len(prompt.ids)] = torch.tensor(prompt.ids)
            attention[row, : len(prompt.ids)] = 1
    eos_ids = loaded.model.generation_config.eos_token_id
    eos = set(eos_ids if isinstance(eos_ids, list) else [eos_ids] if eos_ids is not None else [])
    if tokenizer.eos_token_id is not None:
        eos.add(tokenizer.eos_token_id)
    limits = [r.max_new_tokens for r in requests]
    start = width if causal else 1  # a seq2seq output starts with the decoder start token
    stop = _stop_criteria(tokenizer, start, limits, [r.stop_at_newline for r in requests], eos)
    with torch.inference_mode():
        output = loaded.model.generate(
            input_ids=input_ids.to(loaded.device),
            attention_mask=attention.to(loaded.device),
            max_new_tokens=max(limits),
            do_sample=False,
            num_beams=1,
            pad_token_id=pad,
            eos_token_id=sorted(eos) or None,
            stopping_criteria=StoppingCriteriaList([stop]),
            temperature=None,
            top_p=None,
            top_k=None,
        )
    rows = output[:, start:].tolist()
    results = []
    for row, request in enumerate(requests):
        new = rows[row][: stop.finished_at[row] or limits[row]]
        reason = "length"
        if new and new[-1] in eos:
            new, reason = new[:-1], "eos"
        raw = tokenizer.decode(new, skip_special_tokens=True)
        if reason == "length" and request.stop_at_newline and first_line_settled(raw):
            reason = "newline"
        results.append(Generated(raw, raw, len(new) + (reason == "eos"), reason))
    return results
