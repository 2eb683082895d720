"""The contract every benchmark module fulfils (pure Python: no Django import).

A benchmark owns what is specific to it: how items are built from the published files, what a
human sees, how an answer is parsed and scored, and how a study design splits items into units.
The Django apps, the engine and the stats ask these objects; they never branch on a name.
"""

from __future__ import annotations

import csv
import hashlib
import io
import random
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar, Iterable, Mapping, Sequence


class DatasetError(ValueError):
    """A published file is missing, malformed or truncated; the message names file, row, problem."""

    def __init__(self, file: str, problem: str, row: int | None = None) -> None:
        where = f"{file}" + (f", row {row}" if row is not None else "")
        super().__init__(f"{where}: {problem}")
        self.file = file
        self.row = row
        self.problem = problem


@dataclass(frozen=True)
class SourceFile:
    """One published file: where it lives relative to the source dir, and how to fetch it."""

    path: str
    url: str
    sha256: str


@dataclass(frozen=True)
class ItemData:
    """One item as the benchmark builds it. `prompt` is what a human may see; `gold` never is."""

    key: str
    split: str
    prompt: Mapping[str, Any]
    gold: str
    meta: Mapping[str, Any] = field(default_factory=dict)
    is_attention_check: bool = False


@dataclass(frozen=True)
class Asset:
    """Non-item data a benchmark needs later (prompt templates, word lists, references)."""

    key: str
    data: Any


@dataclass(frozen=True)
class ImportBundle:
    items: list[ItemData]
    assets: list[Asset] = field(default_factory=list)

    def summary(self) -> dict[str, int]:
        counts: dict[str, int] = {}
        for item in self.items:
            counts[item.split] = counts.get(item.split, 0) + 1
        return counts


@dataclass(frozen=True)
class Scored:
    """One answer, human or model, in the single result schema."""

    answer: str | None  # the normalised answer; None when the raw answer is invalid
    correct: bool
    valid: bool


@dataclass(frozen=True)
class ChoicePrompt:
    """A model prompt scored by comparing continuations: `context` followed by each continuation.

    `continuations` maps an answer value (the value `gold` uses) to its exact text, leading space
    included, so that the engine can tokenize context + continuation as one text.
    """

    context: str
    continuations: Mapping[str, str]


@dataclass(frozen=True)
class Choice:
    value: str
    label: str
    keys: tuple[str, ...]  # keyboard shortcuts


class Benchmark:
    """Base class; subclasses set the class attributes and override what differs."""

    name: ClassVar[str]
    title: ClassVar[str]
    #: the partial template that renders one item for a participant
    item_template: ClassVar[str] = "annotation/partials/_item_binary.html"
    #: True when anything typed is stored (and scored invalid/wrong); False when an answer outside
    #: the choices is refused with a message and nothing is stored
    free_text_answers: ClassVar[bool] = False
    #: fields of a study design the benchmark understands, with defaults
    default_design: ClassVar[Mapping[str, Any]] = {}
    default_consent: ClassVar[str] = ""
    default_instructions: ClassVar[str] = ""

    # -- data in -------------------------------------------------------------------------
    def source_files(self) -> list[SourceFile]:
        return []

    def load(self, source: Path, options: Mapping[str, Any] | None = None) -> ImportBundle:
        raise NotImplementedError

    def attention_checks(self) -> list[ItemData]:
        return []

    # -- the human side ------------------------------------------------------------------
    def choices(self, item_prompt: Mapping[str, Any], design: Mapping[str, Any]) -> list[Choice]:
        return []

    def present(self, item_prompt: Mapping[str, Any], design: Mapping[str, Any]) -> dict[str, Any]:
        """The context a participant's partial gets for one item. Never includes the gold."""
        return dict(item_prompt)

    #: True when the page shows earlier items with their correct labels (AmbiBench episodes)
    shows_history: ClassVar[bool] = False

    def history(self, answered: Sequence[Mapping[str, Any]], current_prompt: Mapping[str, Any]) -> list[dict[str, Any]]:
        """What of the earlier answers (dicts: prompt, gold, raw_answer, answer, correct) the page shows."""
        return []

    def parse_answer(self, raw: str) -> str | None:
        raise NotImplementedError

    def score(self, raw: str, gold: str) -> Scored:
        answer = self.parse_answer(raw)
        return Scored(answer=answer, correct=answer is not None and answer == gold, valid=answer is not None)

    # -- design --------------------------------------------------------------------------
    def design(self, overrides: Mapping[str, Any] | None = None) -> dict[str, Any]:
        merged = dict(self.default_design)
        merged.update({k: v for k, v in (overrides or {}).items() if v is not None})
        return merged

    def unit_category(self, unit_items: Sequence[ItemData]) -> str:
        """The balancing category of a unit (AmbiBench: its salient feature); blank when none."""
        return ""

    def build_units(self, items: Sequence[ItemData], design: Mapping[str, Any]) -> list[list[str]]:
        """Split the study's items into units (lists of item keys), one unit per participant."""
        raise NotImplementedError


# -- helpers shared by the benchmark modules -------------------------------------------------


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 16), b""):
            digest.update(block)
    return digest.hexdigest()


def read_csv(path: Path, required: Sequence[str], *, name: str | None = None) -> list[dict[str, str]]:
    """Read a CSV with a real parser; refuse missing columns, ragged or truncated rows."""
    label = name or path.name
    if not path.is_file():
        raise DatasetError(label, "file not found")
    try:
        text = path.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError as exc:
        raise DatasetError(label, f"not UTF-8 text ({exc.reason} at byte {exc.start})") from exc
    reader = csv.reader(io.StringIO(text, newline=""), strict=True)
    try:
        header = next(reader)
    except StopIteration:
        raise DatasetError(label, "file is empty") from None
    except csv.Error as exc:
        raise DatasetError(label, f"unreadable header ({exc})", row=1) from exc
    header = [column.strip() for column in header]
    missing = [column for column in required if column not in header]
    if missing:
        raise DatasetError(label, f"missing column(s) {', '.join(missing)}; found {', '.join(header)}", row=1)
    rows: list[dict[str, str]] = []
    width = len(header)
    needed = max(header.index(column) for column in required) + 1 if required else 0
    try:
        for values in reader:
            line = reader.line_num
            if not any(value.strip() for value in values):
                continue
            if len(values) < needed:
                raise DatasetError(label, f"expected {width} fields, found {len(values)} (truncated?)", row=line)
            rows.append(dict(zip(header, values)))
    except csv.Error as exc:
        raise DatasetError(label, f"malformed CSV ({exc})", row=reader.line_num) from exc
    return rows


def seeded_rng(*parts: object) -> random.Random:
    """A reproducible RNG from any parts (sha256 of their repr), independent of PYTHONHASHSEED."""
    seed = int.from_bytes(hashlib.sha256(repr(parts).encode()).digest()[:8], "big")
    return random.Random(seed)
