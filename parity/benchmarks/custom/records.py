"""A researcher's own items: records (JSONL objects or CSV rows) checked and built into items.

`items_from_records` is the one entry point: the CSV and JSONL readers here and other importers
(e.g. one reading lm-evaluation-harness tasks) hand it plain records with their line numbers. It
refuses the first problem with a DatasetError naming the file, the line and the field, and builds
nothing partial. The record format is described in docs/own-items.md.

An item keeps what a person may see in its prompt (kind, text, context, format, options), its gold
in `gold` (an option, a number, or the first accepted answer), and everything else in its meta:
every accepted answer, the metric and tolerance, the category, what a model reads (`model`) and
the file's extra fields. Nothing of the meta is shown to a participant.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from string import Formatter
from typing import Any

from ..base import DatasetError, ImportBundle, ItemData, read_csv_rows, read_jsonl_rows
from ..from_inspect.scoring import read_spec
from . import scoring
from .prompts import default_model_context

CHOICE, YES_NO, SHORT_TEXT, NUMBER, RATING, FREE_TEXT = (
    "choice",
    "yes_no",
    "short_text",
    "number",
    "rating",
    "free_text",
)
KINDS = (CHOICE, YES_NO, SHORT_TEXT, NUMBER, RATING, FREE_TEXT)
#: kinds a person answers with buttons, and a model by comparing one continuation per option
OPTION_KINDS = (CHOICE, YES_NO, RATING)
#: kinds a person types and a model generates
TYPED_KINDS = (SHORT_TEXT, NUMBER, FREE_TEXT)
#: kinds with no right answer: stored, checked for validity, never scored
UNSCORED_KINDS = (RATING, FREE_TEXT)
YES_NO_OPTIONS = ("yes", "no")
FORMATS = ("plain", "markdown")
FIELDS = (
    "id",
    "text",
    "format",
    "context",
    "kind",
    "options",
    "gold",
    "category",
    "split",
    "attention_check",
    "prompt_template",
    "model_context",
    "continuations",
    "stop",
    "max_tokens",
    "metric",
    "metric_options",
    "tolerance",
    "lengths",
)
DEFAULT_METRIC = {SHORT_TEXT: scoring.EXACT, NUMBER: scoring.NUMERIC}
DEFAULT_STOP = ("\n",)
DEFAULT_MAX_TOKENS = 32
MAX_TOKENS_LIMIT = 2048
#: the most characters a model's context may have (the site's MAX_MODEL_CONTEXT_CHARS overrides it)
MAX_CONTEXT_CHARS = 20_000
#: Item.key and Item.gold hold at most this many characters
KEY_LENGTH, GOLD_LENGTH = 120, 200
#: the longest split name an item is stored with (Item.split)
SPLIT_LENGTH = 40
NAME_PATTERN = re.compile(r"[a-z0-9][a-z0-9_-]{0,39}")
_TRUE, _FALSE = {"true", "yes", "1", "y"}, {"false", "no", "0", "n", ""}


def slug(name: str, fallback: str) -> str:
    """An item set's name made from a task's: lower-case letters, digits, '-' and '_', at most 40."""
    return re.sub(r"[^a-z0-9_-]+", "_", name.lower()).strip("_-")[:40] or fallback


def check_name(name: str, label: str) -> str:
    if not isinstance(name, str) or not NAME_PATTERN.fullmatch(name):
        raise DatasetError(
            label,
            f"the item set's name must be a slug (lower-case letters, digits, '-' and '_', "
            f"at most 40 characters), not {name!r}",
        )
    return name


class _Record:
    """One record being checked: its values, and the errors that name its line and a field."""

    def __init__(self, record: Mapping[str, Any], label: str, line: int) -> None:
        if not isinstance(record, Mapping):
            raise DatasetError(label, "expected an object with id, text and kind", row=line)
        self.values = {str(key).strip(): value for key, value in record.items()}
        self.label, self.line = label, line

    def error(self, field: str, problem: str) -> DatasetError:
        return DatasetError(self.label, f"field '{field}': {problem}", row=self.line)

    def present(self, field: str) -> bool:
        value = self.values.get(field)
        return value is not None and not (isinstance(value, str) and not value.strip()) and value != []

    def text(self, field: str, default: str = "", *, required: bool = False) -> str:
        if not self.present(field):
            if required:
                raise self.error(field, "is required")
            return default
        value = self.values[field]
        if isinstance(value, bool) or not isinstance(value, (str, int, float)):
            raise self.error(field, f"must be text, not {type(value).__name__}")
        return str(value).strip() if not isinstance(value, str) else value.strip()

    def raw_text(self, field: str) -> str:
        """Text kept as written (leading spaces matter in a model's context)."""
        value = self.values.get(field)
        if value is None or value == "":
            return ""
        if not isinstance(value, str):
            raise self.error(field, f"must be text, not {type(value).__name__}")
        return value

    def strings(self, field: str, *, strip: bool = True) -> list[str]:
        """A list: a JSON array, or text with '|' between the entries; [] when absent."""
        if not self.present(field):
            return []
        value = self.values[field]
        parts: Sequence[Any]
        if isinstance(value, str):
            parts = value.split("|")
        elif isinstance(value, (list, tuple)):
            parts = value
        elif isinstance(value, (int, float)) and not isinstance(value, bool):
            parts = [value]
        else:
            raise self.error(field, f"must be a list or text with '|' between the entries, not {type(value).__name__}")
        found = []
        for part in parts:
            if isinstance(part, bool) or not isinstance(part, (str, int, float)):
                raise self.error(field, f"entries must be text, not {type(part).__name__}")
            entry = part if isinstance(part, str) else scoring.format_number(float(part))
            found.append(entry.strip() if strip else entry)
        if any(not (entry.strip() if strip else entry) for entry in found):  # "\n" is a stop string
            raise self.error(field, "has an empty entry")
        return found

    def flag(self, field: str) -> bool:
        value = self.values.get(field)
        if value is None or isinstance(value, bool):
            return bool(value)
        if isinstance(value, str) and value.strip().lower() in _TRUE | _FALSE:
            return value.strip().lower() in _TRUE
        raise self.error(field, f"must be true or false, not {value!r}")

    def number(self, field: str, default: float) -> float:
        if not self.present(field):
            return default
        value = self.values[field]
        try:
            number = (
                None
                if isinstance(value, bool)
                else (float(value) if isinstance(value, (int, float)) else scoring.parse_number(str(value)))
            )
        except OverflowError:
            number = None
        if number is None or not math.isfinite(number):
            raise self.error(field, f"must be a number, not {str(value)[:40]!r}")
        return number


def _options(record: _Record, kind: str) -> list[str]:
    options = record.strings("options")
    if kind == YES_NO:
        if options and [option.lower() for option in options] != list(YES_NO_OPTIONS):
            raise record.error("options", "a yes_no item's options are yes|no (leave the field empty)")
        return list(YES_NO_OPTIONS)
    if kind not in OPTION_KINDS:
        if options:
            raise record.error("options", f"a {kind} item has no options")
        return []
    if len(options) < 2:
        raise record.error("options", f"a {kind} item needs at least 2 options, found {len(options)}")
    repeated = sorted({option for option in options if options.count(option) > 1})
    if repeated:
        raise record.error("options", f"option(s) listed twice: {', '.join(repeated)}")
    return options


def _gold(record: _Record, kind: str, options: Sequence[str]) -> tuple[str, list[str]]:
    """(gold, accepted answers): the gold an item is stored with and every answer that counts."""
    if kind in UNSCORED_KINDS:
        if record.present("gold"):
            raise record.error("gold", f"a {kind} item has no right answer; leave gold empty")
        return "", []
    if not record.present("gold"):
        raise record.error("gold", f"a {kind} item needs its right answer")
    if kind == NUMBER:
        number = record.number("gold", 0.0)
        return scoring.format_number(number), [scoring.format_number(number)]
    if kind == SHORT_TEXT:
        # lm-evaluation-harness's exact_match compares a target as written, spaces included
        answers = record.strings("gold", strip=record.text("metric").lower() != scoring.EXACT_MATCH)
        return answers[0], answers
    gold = record.text("gold")
    if kind == YES_NO:
        gold = gold.lower()
    if gold not in options:
        raise record.error("gold", f"{gold!r} is not among the options ({' | '.join(options)})")
    return gold, [gold]


def _metric(record: _Record, kind: str, answers: Sequence[str]) -> tuple[str, float, list[str]]:
    present = [field for field in ("metric", "tolerance", "metric_options") if record.present(field)]
    if kind not in (SHORT_TEXT, NUMBER):
        if present:
            raise record.error(present[0], f"only short_text and number items have a metric; this one is {kind}")
        return "", 0.0, []
    metric = record.text("metric", DEFAULT_METRIC[kind]).lower()
    allowed = scoring.METRICS if kind == SHORT_TEXT else (scoring.NUMERIC,)
    if metric not in allowed:
        raise record.error("metric", f"must be one of {', '.join(allowed)} for a {kind} item, not {metric!r}")
    tolerance = record.number("tolerance", 0.0)
    if tolerance < 0:
        raise record.error("tolerance", f"must be 0 or more, not {scoring.format_number(tolerance)}")
    if metric == scoring.NUMERIC:
        wrong = [answer for answer in answers if scoring.parse_number(answer) is None]
        if wrong:
            raise record.error("gold", f"the numeric metric needs numbers, not {wrong[0]!r}")
    if metric == scoring.INSPECT:
        try:
            read_spec(record.text("inspect_scorer", required=True))
        except ValueError as exc:
            raise record.error("inspect_scorer", str(exc)) from None
    options = record.strings("metric_options")
    if options and metric != scoring.EXACT_MATCH:
        raise record.error("metric_options", f"only the exact_match metric takes options; this item's is {metric}")
    unknown = [option for option in options if option not in scoring.MATCH_OPTIONS]
    if unknown:
        raise record.error("metric_options", f"must be among {', '.join(scoring.MATCH_OPTIONS)}, not {unknown[0]!r}")
    return metric, tolerance, options


def _template_fields(record: _Record, options: Sequence[str], extra: Mapping[str, str]) -> dict[str, str]:
    return {
        "id": record.text("id"),
        "text": record.text("text"),
        "context": record.text("context"),
        "kind": record.text("kind"),
        "category": record.text("category"),
        "options": ", ".join(options),
        **extra,
    }


def _template_parts(record: _Record, template: str, fields: Mapping[str, str]) -> list[tuple[str, str | None]]:
    """(literal text, field name or None) of a template of plain `{field}` substitutions.

    A format spec (`{text:>2000000}`) or a conversion (`{text!r}`) is refused: a spec's width makes
    a 98-byte line a 2 MB context, and neither has a use in a prompt."""
    try:
        parsed = list(Formatter().parse(template))
    except ValueError as exc:
        raise record.error("prompt_template", f"malformed template ({exc})") from None
    known = ", ".join(sorted(fields))
    parts: list[tuple[str, str | None]] = []
    for literal, name, spec, conversion in parsed:
        if name is None:
            parts.append((literal, None))
            continue
        shown = f"{{{name}}}" if name else "{}"
        if spec or conversion is not None:
            written = f"{{{name}{'!' + conversion if conversion is not None else ''}{':' + spec if spec else ''}}}"
            raise record.error(
                "prompt_template",
                f"{written} is not a plain substitution: only {{field}} is allowed (no format spec "
                f"after ':', no conversion after '!'); write {shown}",
            )
        if name not in fields:
            raise record.error("prompt_template", f"unknown field {shown}; the record has {known}")
        parts.append((literal, name))
    return parts


def _model_context(record: _Record, kind: str, options: Sequence[str], extra: Mapping[str, str], max_chars: int) -> str:
    """What a model reads, at most `max_chars` characters: the record's `model_context`, its
    `prompt_template` filled in, or the default context. A template's length is counted before it
    is filled in, so an over-long one is refused without being built."""
    if record.present("model_context"):
        context = record.raw_text("model_context")
        field = "model_context"
    else:
        fields = _template_fields(record, options, extra)
        if not record.present("prompt_template"):
            context, field = default_model_context(fields["text"], fields["context"], options), "text"
        else:
            parts = _template_parts(record, record.raw_text("prompt_template"), fields)
            length = sum(len(literal) + (len(fields[name]) if name else 0) for literal, name in parts)
            if length > max_chars:
                raise record.error(
                    "prompt_template", f"fills in to {length:,} characters; a model's context has at most {max_chars:,}"
                )
            return "".join(literal + (fields[name] if name else "") for literal, name in parts)
    if len(context) > max_chars:
        raise record.error(field, f"makes a model's context of {len(context):,} characters; at most {max_chars:,}")
    return context


def _continuations(record: _Record, kind: str, options: Sequence[str]) -> list[str]:
    if kind not in OPTION_KINDS:
        if record.present("continuations"):
            raise record.error("continuations", f"a {kind} item is generated, not chosen: it has no continuations")
        return []
    if not record.present("continuations"):
        return [" " + option for option in options]
    continuations = record.strings("continuations", strip=False)
    if len(continuations) != len(options):
        raise record.error(
            "continuations", f"one per option: {len(options)} options, {len(continuations)} continuations"
        )
    return continuations


def _lengths(record: _Record, kind: str, options: Sequence[str]) -> list[int]:
    """What acc_norm divides each option's log-likelihood by: the option's characters, or the
    record's own `lengths` (the lm_eval importer gives the harness's untrimmed choices')."""
    if not record.present("lengths"):
        return [len(option) for option in options] if kind in OPTION_KINDS else []
    if kind not in OPTION_KINDS:
        raise record.error("lengths", f"a {kind} item is generated, not chosen: it has no option lengths")
    lengths = record.strings("lengths")
    if len(lengths) != len(options) or not all(length.isdigit() and int(length) > 0 for length in lengths):
        raise record.error(
            "lengths", f"one whole number above 0 per option: {len(options)} options, found {' | '.join(lengths)}"
        )
    return [int(length) for length in lengths]


def _unescape(stop: str) -> str:
    """`\\n` and `\\t` as written in a spreadsheet cell stand for a newline and a tab."""
    return stop.replace("\\n", "\n").replace("\\t", "\t")


def _generation(record: _Record, kind: str) -> dict[str, Any]:
    if kind not in TYPED_KINDS:
        for field in ("stop", "max_tokens"):
            if record.present(field):
                raise record.error(field, f"a {kind} item is chosen, not generated: it has no {field}")
        return {}
    stops = [_unescape(stop) for stop in record.strings("stop", strip=False)] or list(DEFAULT_STOP)
    tokens = float(record.number("max_tokens", DEFAULT_MAX_TOKENS))
    if not tokens.is_integer() or not 1 <= tokens <= MAX_TOKENS_LIMIT:
        raise record.error(
            "max_tokens", f"must be a whole number from 1 to {MAX_TOKENS_LIMIT}, not {record.values['max_tokens']!r}"
        )
    return {"stop": stops, "max_tokens": int(tokens)}


def _extra(record: _Record) -> dict[str, str]:
    extra = {}
    for key, value in record.values.items():
        if key in FIELDS or not key:
            continue
        if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", key):
            raise record.error(key, "an extra field's name must be letters, digits and '_'")
        extra[key] = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    return extra


def record_item(record: _Record, name: str, max_context_chars: int = MAX_CONTEXT_CHARS) -> ItemData:
    item_id = record.text("id", required=True)
    key = f"{name}/{item_id}"
    if len(key) > KEY_LENGTH:
        raise record.error("id", f"too long: the key {name}/id may have at most {KEY_LENGTH} characters")
    text = record.text("text", required=True)
    kind = record.text("kind", required=True).lower()
    if kind not in KINDS:
        raise record.error("kind", f"must be one of {', '.join(KINDS)}, not {kind!r}")
    text_format = record.text("format", "plain").lower()
    if text_format not in FORMATS:
        raise record.error("format", f"must be plain or markdown, not {text_format!r}")
    options = _options(record, kind)
    gold, answers = _gold(record, kind, options)
    if len(gold) > GOLD_LENGTH:
        raise record.error("gold", f"longer than {GOLD_LENGTH} characters")
    metric, tolerance, metric_options = _metric(record, kind, answers)
    attention = record.flag("attention_check")
    if attention and not gold:
        raise record.error("attention_check", f"an attention check needs a right answer; a {kind} item has none")
    extra = _extra(record)
    model = {
        "context": _model_context(record, kind, options, extra, max_context_chars),
        "continuations": _continuations(record, kind, options),
        **_generation(record, kind),
    }
    if kind in OPTION_KINDS:
        model["lengths"] = _lengths(record, kind, options)
    elif record.present("lengths"):
        _lengths(record, kind, options)
    meta: dict[str, Any] = {
        "set": name,
        "id": item_id,
        "kind": kind,
        "line": record.line,
        "model": model,
        "extra": extra,
    }
    if answers:
        meta.update(answers=answers)
    if kind == RATING:
        meta["scale"] = options  # the order the ordinal agreement ranks ratings by
    if metric:
        meta.update(metric=metric, tolerance=tolerance)
        if metric_options:
            meta["metric_options"] = metric_options
    if record.present("category"):
        meta["category"] = record.text("category")
    prompt: dict[str, Any] = {"kind": kind, "text": text, "format": text_format, "context": record.text("context")}
    if options:
        prompt["options"] = options
    split = record.text("split", "test")
    if len(split) > SPLIT_LENGTH:
        raise record.error("split", f"longer than {SPLIT_LENGTH} characters")
    return ItemData(key=key, split=split, prompt=prompt, gold=gold, meta=meta, is_attention_check=attention)


def _refuse_nul(record: _Record, values: Mapping[str, Any]) -> None:
    """A NUL character is no text a database keeps (PostgreSQL refuses it); name the field."""

    def holds_nul(value: Any) -> bool:
        if isinstance(value, str):
            return "\x00" in value
        if isinstance(value, (list, tuple)):
            return any(holds_nul(entry) for entry in value)
        if isinstance(value, Mapping):
            return any(holds_nul(key) or holds_nul(entry) for key, entry in value.items())
        return False

    for field, value in values.items():
        if holds_nul(field) or holds_nul(value):
            raise record.error(str(field).replace("\x00", "\\0"), "contains a NUL character (\\0)")


def items_from_records(
    records: Sequence[Mapping[str, Any]],
    *,
    name: str,
    label: str,
    lines: Sequence[int] | None = None,
    max_context_chars: int = MAX_CONTEXT_CHARS,
) -> ImportBundle:
    """The items of one item set from its records; `lines[i]` is the line (or spreadsheet row) of
    `records[i]` in the file named `label`; a model's context has at most `max_context_chars`
    characters. Raises DatasetError on the first problem."""
    check_name(name, label)
    if lines is not None and len(lines) != len(records):
        raise ValueError(f"{len(records)} records but {len(lines)} line numbers")
    items: list[ItemData] = []
    first_line: dict[str, int] = {}
    for index, values in enumerate(records):
        line = lines[index] if lines is not None else index + 1
        record = _Record(values, label, line)
        _refuse_nul(record, values)
        item = record_item(record, name, max_context_chars)
        item_id = item.meta["id"]
        if item_id in first_line:
            raise record.error("id", f"duplicate id {item_id!r} (first on line {first_line[item_id]})")
        first_line[item_id] = line
        items.append(item)
    if not items:
        raise DatasetError(label, "no items: the file has no records")
    return ImportBundle(items=items)


# -- files ------------------------------------------------------------------------------------


def read_records(path: Path, label: str | None = None) -> tuple[list[dict[str, Any]], list[int]]:
    """(records, line numbers) of a CSV (header row; spreadsheet row numbers) or JSONL file."""
    label = label or path.name
    suffix = path.suffix.lower()
    if suffix == ".csv":
        rows: list[tuple[int, Mapping[str, Any]]] = list(
            read_csv_rows(path, ("id", "text", "kind"), name=label, every_column=True)
        )
    elif suffix in (".jsonl", ".ndjson"):
        rows = list(read_jsonl_rows(path, name=label))
    else:
        raise DatasetError(label, "expected a .csv or .jsonl file")
    return [dict(record) for _, record in rows], [number for number, _ in rows]


def items_from_file(
    path: Path, *, name: str, label: str | None = None, max_context_chars: int = MAX_CONTEXT_CHARS
) -> ImportBundle:
    records, lines = read_records(path, label)
    return items_from_records(
        records, name=name, label=label or path.name, lines=lines, max_context_chars=max_context_chars
    )
