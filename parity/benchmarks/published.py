"""A benchmark's published human study as read from its files (pure Python: no Django import)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class PublishedRow:
    row: int  # the row in its file as a spreadsheet counts (the header is row 1)
    prompt: dict[str, str]
    gold: str
    answers: tuple[str, ...]  # one per annotator column, as written in the file


@dataclass(frozen=True)
class PublishedSubset:
    """One published file: the items of one unit, answered by the same annotators."""

    file: str
    label: str
    annotators: tuple[str, ...]
    rows: tuple[PublishedRow, ...]


@dataclass(frozen=True)
class PublishedStudy:
    """A benchmark's published human study, read and checked, ready to import as a closed study."""

    benchmark: str
    source: str
    split: str
    subsets: tuple[PublishedSubset, ...]
    #: prompt fields a file row must match on its item (compared after normalising whitespace/case)
    match_fields: tuple[str, ...]
    #: the key of the imported item a file row is about (the benchmark's own content key)
    item_key: Callable[[PublishedRow], str]

    @property
    def n_responses(self) -> int:
        return sum(len(s.rows) * len(s.annotators) for s in self.subsets)
