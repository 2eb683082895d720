"""Run rows through a causal LM in token-budget batches and read log-probs at the read positions.

Rows are sorted by length (longest first, ties by index: deterministic) and packed into batches
whose padded size fits the token budget and whose rows differ little in length; right padding,
no attention mask (causal attention never looks ahead to the pads), torch.inference_mode.
A prefix that all rows of a batch share is run once and its key/value cache reused by every row.
Only the positions that are read reach the vocabulary projection where the model supports
`logits_to_keep` with a boolean mask; those logits are cast to fp32 before the log-softmax,
and each batch syncs with the host once (a single `.tolist()`).
"""

from __future__ import annotations

import inspect
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from .plan import Row

#: a shared prefix shorter than this is not worth a separate pass
MIN_SHARED_PREFIX = 2
#: per row, per read: (log-prob of the target, target is the argmax, log-prob of the argmax, argmax id,
#: rank of the target: 1 + the tokens strictly likelier than it)
RowScores = list[tuple[float, bool, float, int, int]]


def read_scores(picked: Any, targets: Any, counts: Sequence[int]) -> list[RowScores]:
    """(log-prob, is argmax, top log-prob, top token id, rank) of each target at the picked logit
    rows, split back per row: the log-softmax in fp32 on the read positions only, and one host sync
    for the whole batch. The top token says where a model's mass went when it is not a candidate
    (AmbiBench counts such an answer invalid); the rank says whether an API that lists only the top
    few tokens would have shown the target (AmbiBench's authors saw the top 4)."""
    import torch

    picked = picked.float()
    targets = targets.to(picked.device)
    logprobs = torch.log_softmax(picked, dim=-1)
    chosen = logprobs.gather(1, targets[:, None]).squeeze(1)
    top_logprob, top_id = logprobs.max(dim=-1)
    greedy = top_id == targets
    rank = (logprobs > chosen[:, None]).sum(dim=-1) + 1
    # ids and ranks below 2**24 survive the float round trip exactly
    values = torch.stack([chosen, greedy.float(), top_logprob, top_id.float(), rank.float()]).tolist()
    scores: list[RowScores] = []
    cursor = 0
    for n in counts:
        scores.append(
            [
                (
                    values[0][cursor + i],
                    values[1][cursor + i] == 1.0,
                    values[2][cursor + i],
                    int(values[3][cursor + i]),
                    int(values[4][cursor + i]),
                )
                for i in range(n)
            ]
        )
        cursor += n
    return scores


@dataclass(frozen=True)
class Batch:
    rows: tuple[int, ...]  # indices into the row list, longest first
    width: int  # padded length


def make_batches(lengths: Sequence[int], *, token_budget: int, max_rows: int, max_padding: float = 1.0) -> list[Batch]:
    """Greedy packing of length-sorted rows: a batch grows while rows x width fits the budget
    and the next row would be padded by at most `max_padding` of the batch width."""
    order = sorted(range(len(lengths)), key=lambda i: (-lengths[i], i))
    batches: list[Batch] = []
    current: list[int] = []
    for index in order:
        if current:
            width = lengths[current[0]]
            if (
                (len(current) + 1) * width > token_budget
                or len(current) >= max_rows
                or width - lengths[index] > max_padding * width
            ):
                batches.append(Batch(tuple(current), width))
                current = []
        current.append(index)
    if current:
        batches.append(Batch(tuple(current), lengths[current[0]]))
    return batches


def _accepts_logits_to_keep(model: Any) -> bool:
    try:
        return "logits_to_keep" in inspect.signature(model.forward).parameters
    except (TypeError, ValueError):
        return False


class RowRunner:
    """Scores rows for one loaded causal model."""

    def __init__(self, model: Any, *, device: str, pad_token_id: int) -> None:
        self.model = model
        self.device = device
        self.pad_token_id = pad_token_id
        self._keep_mask: bool | None = None  # probed on the first batch
        self._share_prefix = True
        self.last_shared = 0  # prefix tokens the last batch ran once for all its rows

    def run_batch(self, rows: Sequence[Row]) -> list[RowScores]:
        import torch

        width = max(len(row.tokens) for row in rows)
        with torch.inference_mode():
            input_ids = torch.full((len(rows), width), self.pad_token_id, dtype=torch.long)
            keep = torch.zeros((len(rows), width), dtype=torch.bool)
            for r, row in enumerate(rows):
                input_ids[r, : len(row.tokens)] = torch.tensor(row.tokens, dtype=torch.long)
                keep[r, list(row.positions)] = True
            # the flat index of (row, position) among the kept positions, in row-major order
            flat = torch.cumsum(keep.flatten(), 0).view(len(rows), width) - 1
            read_rows = torch.tensor([r for r, row in enumerate(rows) for _ in row.positions], dtype=torch.long)
            read_positions = torch.tensor([p for row in rows for p in row.positions], dtype=torch.long)
            read_index = flat[read_rows, read_positions]
            targets = torch.tensor([t for row in rows for t in row.targets], dtype=torch.long)
            shared = self._shared_prefix(rows)
            logits = self._kept_logits(input_ids, keep, shared)
            self.last_shared = shared if self._share_prefix else 0
            return read_scores(logits[read_index.to(logits.device)], targets, [len(row.positions) for row in rows])

    def _shared_prefix(self, rows: Sequence[Row]) -> int:
        """Tokens every row of the batch starts with and reads nothing in (0 when not worth it)."""
        if len(rows) < 2 or not self._share_prefix:
            return 0
        first = rows[0].tokens
        limit = min(min(len(row.tokens) for row in rows) - 1, min(min(row.positions) for row in rows))
        length = 0
        while length < limit and all(row.tokens[length] == first[length] for row in rows):
            length += 1
        return length if length >= MIN_SHARED_PREFIX else 0

    def _kept_logits(self, input_ids: Any, keep: Any, shared: int) -> Any:
        """Logits of the kept positions only, shape (n_kept, vocab), in row-major order.

        Right padding needs no attention mask in a causal model: a real token never attends to
        the pads after it. A prefix that every row shares is run once and its key/value cache
        copied to every row, so the rows only pay for what follows it.
        """
        if self._keep_mask is None:
            self._keep_mask = self._probe_keep_mask()
        if shared:
            try:
                prefix = self.model(input_ids=input_ids[:1, :shared].to(self.device), use_cache=True, logits_to_keep=1)
                cache = prefix.past_key_values
                cache.batch_repeat_interleave(input_ids.shape[0])
                return self._forward(
                    input_ids[:, shared:], keep[:, shared:], {"past_key_values": cache, "use_cache": True}
                )
            except (AttributeError, NotImplementedError, RuntimeError, TypeError, ValueError):
                self._share_prefix = False  # a model without a usable cache: run rows whole
        return self._forward(input_ids, keep, {"use_cache": False})

    def _forward(self, input_ids: Any, keep: Any, kwargs: dict[str, Any]) -> Any:
        device = self.device
        if self._keep_mask:
            return self.model(input_ids=input_ids.to(device), logits_to_keep=keep.to(device), **kwargs).logits
        logits = self.model(input_ids=input_ids.to(device), **kwargs).logits
        return logits[keep.to(logits.device)]

    def _probe_keep_mask(self) -> bool:
        """Whether the model projects only the positions of a boolean `logits_to_keep` mask."""
        import torch

        if not _accepts_logits_to_keep(self.model):
            return False
        keep = torch.tensor([[False, True, False]], device=self.device)
        ids = torch.full((1, 3), self.pad_token_id, dtype=torch.long, device=self.device)
        try:
            logits = self.model(input_ids=ids, logits_to_keep=keep, use_cache=False).logits
        except (IndexError, RuntimeError, TypeError, ValueError):
            return False
        return logits.dim() == 2 and logits.shape[0] == 1
