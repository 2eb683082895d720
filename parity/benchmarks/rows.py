"""Building a benchmark's items from its files' rows: comparing texts, stable ids from content,
refusing a file whose rows repeat an item, and seeded draws independent of the interpreter's hash seed."""

from __future__ import annotations

import hashlib
import random
import re
from collections.abc import Iterable

from .files import DatasetError


def normalise_text(text: str) -> str:
    """Whitespace runs as one space, trimmed, lower-cased: how two copies of a text are compared."""
    return re.sub(r"\s+", " ", text).strip().lower()


def content_key(*parts: str) -> str:
    """A stable id from the text that defines an item (whitespace and case normalised), for data
    whose source gives none: an inserted, deleted or reordered row changes no other item's id."""
    text = "\x1f".join(re.sub(r"\s+", " ", part).strip().lower() for part in parts)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:12]


def refuse_duplicate_rows(label: str, keyed_rows: Iterable[tuple[str, int]], what: str = "item") -> None:
    """DatasetError naming the rows when two rows of one file define the same item, instead of
    silently keeping the last of them."""
    rows_of: dict[str, list[int]] = {}
    for key, row in keyed_rows:
        rows_of.setdefault(key, []).append(row)
    repeated = [rows for rows in rows_of.values() if len(rows) > 1]
    if repeated:
        named = "; ".join("rows " + " and ".join(str(row) for row in rows) for rows in repeated[:10])
        more = f" (and {len(repeated) - 10} more)" if len(repeated) > 10 else ""
        raise DatasetError(label, f"duplicate rows, each the same {what}: {named}{more}")


def seeded_rng(*parts: object) -> random.Random:
    """A reproducible RNG from any parts (sha256 of their repr), independent of PYTHONHASHSEED."""
    seed = int.from_bytes(hashlib.sha256(repr(parts).encode()).digest()[:8], "big")
    return random.Random(seed)
