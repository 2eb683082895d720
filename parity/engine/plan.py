"""Turn requests into forward rows: token ids plus the (position, target token) pairs read from them.

A row is one sequence the model runs once. Reads at position p with target t give
log P(t | tokens[:p + 1]). Sharing rules:
- continuations of one ChoiceRequest that all follow the same prefix and are one token each
  (yes/no) share ONE row: the prefix, read at its last position for every target;
- a multi-token continuation has its own row (prefix + continuation minus its last token); the
  single-token siblings with the same prefix ride along on it;
- a MultiReadRequest is one row over its text; a candidate is read in that row when its tokens are
  the text's own (or it is one token after the same prefix), else it gets a row of its own.
Rows longer than the model window lose tokens on the left (recorded); identical rows are run once.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from .requests import ChoiceRequest, MultiReadRequest
from .tokens import Span, TextEncoder, continuation_spans_many


@dataclass(frozen=True)
class Row:
    tokens: tuple[int, ...]
    positions: tuple[int, ...]  # parallel with targets
    targets: tuple[int, ...]
    truncated: int  # tokens cut on the left to fit the window


#: where one continuation's token scores live: (row index, read index) per token, in order
Slot = tuple[tuple[int, int], ...]


@dataclass(frozen=True)
class PlannedChoice:
    slots: tuple[Slot, ...]  # one per continuation
    rows: tuple[int, ...]  # every row this request needs


@dataclass(frozen=True)
class PlannedReads:
    reads: tuple[tuple[Slot, ...], ...]  # per read, one slot per candidate
    rows: tuple[int, ...]


@dataclass
class _Draft:
    tokens: tuple[int, ...]
    reads: list[tuple[int, int]] = field(default_factory=list)

    def read(self, position: int, target: int) -> int:
        pair = (position, target)
        if pair in self.reads:
            return self.reads.index(pair)
        self.reads.append(pair)
        return len(self.reads) - 1

    def read_span(self, span: Span) -> list[int]:
        return [
            self.read(position, target) for position, target in zip(range(span.start - 1, span.end - 1), span.tokens)
        ]


class RowBook:
    """All rows of one engine call, identical rows stored once."""

    def __init__(self, max_length: int) -> None:
        self.max_length = max_length
        self.rows: list[Row] = []
        self._index: dict[tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]], int] = {}

    def commit(self, draft: _Draft, owner: str) -> tuple[int, int]:
        """Store a draft as a row (cut to the window); returns (row index, tokens cut)."""
        last = max(position for position, _ in draft.reads)
        tokens = draft.tokens[: last + 1]
        cut = max(0, len(tokens) - self.max_length)
        positions = tuple(position - cut for position, _ in draft.reads)
        if min(positions) < 0:
            raise ValueError(f"{owner}: the scored tokens alone exceed the model window of {self.max_length}")
        targets = tuple(target for _, target in draft.reads)
        key = (tokens[cut:], positions, targets)
        index = self._index.get(key)
        if index is None:
            index = len(self.rows)
            self._index[key] = index
            self.rows.append(Row(tokens[cut:], positions, targets, cut))
        return index, cut


def _plan_spans(book: RowBook, spans: Sequence[Span], owner: str) -> tuple[list[Slot], set[int]]:
    """Rows for continuations that were each tokenized inside their own full text."""
    groups: dict[tuple[int, ...], list[int]] = {}
    for index, span in enumerate(spans):
        groups.setdefault(span.prefix, []).append(index)
    drafts: list[tuple[_Draft, list[tuple[int, list[int]]]]] = []
    for prefix, members in groups.items():
        multi = [i for i in members if len(spans[i].tokens) > 1]
        host = _Draft(spans[multi[0]].encoded.ids[: spans[multi[0]].end - 1]) if multi else _Draft(prefix)
        hosted: list[tuple[int, list[int]]] = []
        for i in members:
            if multi and i != multi[0] and len(spans[i].tokens) > 1:
                own = _Draft(spans[i].encoded.ids[: spans[i].end - 1])
                drafts.append((own, [(i, own.read_span(spans[i]))]))
            else:
                hosted.append((i, host.read_span(spans[i])))
        drafts.append((host, hosted))
    slots: list[Slot] = [()] * len(spans)
    rows: set[int] = set()
    for draft, members_reads in drafts:
        row, _ = book.commit(draft, owner)
        rows.add(row)
        for i, read_indices in members_reads:
            slots[i] = tuple((row, read) for read in read_indices)
    return slots, rows


def plan_choices(encoder: TextEncoder, book: RowBook, requests: Sequence[ChoiceRequest]) -> list[PlannedChoice]:
    planned = []
    all_spans = continuation_spans_many(encoder, [(r.context, r.continuations) for r in requests])
    for request, spans in zip(requests, all_spans):
        slots, rows = _plan_spans(book, spans, request.key)
        planned.append(PlannedChoice(tuple(slots), tuple(sorted(rows))))
    return planned


def plan_reads(encoder: TextEncoder, book: RowBook, requests: Sequence[MultiReadRequest]) -> list[PlannedReads]:
    return [_plan_one_read_request(encoder, book, request) for request in requests]


def _plan_one_read_request(encoder: TextEncoder, book: RowBook, request: MultiReadRequest) -> PlannedReads:
    full = encoder.encode_many([request.text])[0]
    per_read_spans = continuation_spans_many(
        encoder, [(request.text[: read.offset], read.candidates) for read in request.reads]
    )
    if len(full.ids) - 1 > book.max_length:
        # the whole text does not fit: each read is scored on its own, left-truncated context
        results = [_plan_spans(book, spans, request.key) for spans in per_read_spans]
        every_row: set[int] = set().union(*(rows for _, rows in results)) if results else set()
        return PlannedReads(tuple(tuple(slots) for slots, _ in results), tuple(sorted(every_row)))

    main = _Draft(full.ids)
    main_reads: list[tuple[int, int, list[int]]] = []  # (read index, candidate index, read indices)
    slots: list[list[Slot]] = [[()] * len(read.candidates) for read in request.reads]
    rows: set[int] = set()
    for r, (read, spans) in enumerate(zip(request.reads, per_read_spans)):
        start = full.split_at(read.offset)
        for c, span in enumerate(spans):
            same_prefix = start >= 1 and span.start == start and span.prefix == full.ids[:start]
            if same_prefix and (len(span.tokens) == 1 or span.tokens == full.ids[start : start + len(span.tokens)]):
                main_reads.append((r, c, main.read_span(span)))
            else:
                own = _Draft(span.encoded.ids[: span.end - 1])
                indices = own.read_span(span)
                row, _ = book.commit(own, request.key)
                rows.add(row)
                slots[r][c] = tuple((row, index) for index in indices)
    if main_reads:
        row, _ = book.commit(main, request.key)
        rows.add(row)
        for r, c, indices in main_reads:
            slots[r][c] = tuple((row, index) for index in indices)
    return PlannedReads(tuple(tuple(s) for s in slots), tuple(sorted(rows)))
