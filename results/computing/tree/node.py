"""The tree's node: a record of `parity.records`, written into JSON by `to_json` and read back by
`from_json`, with the field metadata the package's docstring lists (`parity.records`: `OMIT_IF_NONE`,
`OMIT_IF_EMPTY`, `HIDDEN`, `INLINE`, `present_if`): the tree and a benchmark's own sections inside it follow one set of
rules."""

from __future__ import annotations

from parity.records import Record


class Node(Record):
    """A dataclass of the tree: written as a JSON object, one key per field."""
