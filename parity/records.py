"""Frozen dataclasses written as JSON objects, one key per field in field order, and read back.

A benchmark's own sections of the results (`parity.benchmarks.sections`) are such records: the
results tree writes them with `Record.to_json` and reads them with `Record.from_json`, key for key
the JSON the sections had as plain mappings. A field's metadata may say:

- `omit_if_none`: the key is left out when the value is None (a section the study has not);
- `inline`: the value's keys are written into the record itself: a record's fields (left out when it
  is None), a `parity.stats` result's, or a mapping's, which on reading takes the keys no other field
  claims;
- `omit_if_empty`: the key is left out when the value is None, an empty list or False;
- `present_if`: the key is written only when the named boolean field of the same record is true;
- `hidden`: never written; a hidden boolean that other fields are `present_if` reads back true when
  the keys it governs were written.

The results tree's nodes (`results.computing.tree`) are records too, so that a benchmark's sections
and the tree around them are written and read by the one set of rules.

Values inside are records, `parity.stats` results (written with their `to_dict()`, read back field
by field), lists, mappings (keys of `dict[int, ...]` come back as ints) and JSON scalars, written as
they are.
"""

from __future__ import annotations

import functools
import types
from collections.abc import Mapping
from dataclasses import MISSING, Field, fields, is_dataclass
from typing import Any, Self, Union, get_args, get_origin, get_type_hints

#: the metadata of a field written only when not None
OMIT_IF_NONE = {"omit_if_none": True}
#: the metadata of a field whose keys are written into its record
INLINE = {"inline": True}
#: the metadata of a field written only when set: not None, an empty list or False (as
#: `studies.design.screening.Screening.to_json` stores a prescreening)
OMIT_IF_EMPTY = {"omit_if_empty": True}
#: the metadata of a field never written
HIDDEN = {"hidden": True}


def to_json(value: Any) -> Any:
    """The JSON value of a record or of anything in one."""
    if isinstance(value, Record):
        return value.to_json()
    if is_dataclass(value) and not isinstance(value, type):
        return value.to_dict()  # type: ignore[attr-defined]
    if isinstance(value, Mapping):
        return {key: to_json(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [to_json(item) for item in value]
    return value


@functools.cache
def _hints(cls: type) -> dict[str, Any]:
    """The resolved annotations of a class: resolving evaluates every annotation's text, once."""
    return get_type_hints(cls)


def _dataclass_of(hint: Any) -> type | None:
    """The dataclass `hint` names, alone or or-ed with None (None for any other hint)."""
    if get_origin(hint) is Union or get_origin(hint) is types.UnionType:
        kinds = [kind for kind in get_args(hint) if kind is not type(None)]
        hint = kinds[0] if len(kinds) == 1 else None
    return hint if isinstance(hint, type) and is_dataclass(hint) else None


def from_json(hint: Any, value: Any) -> Any:
    """The value of type `hint` that `to_json` writes as `value`."""
    if value is None:
        return None
    origin = get_origin(hint)
    if origin is Union or origin is types.UnionType:
        kinds = [kind for kind in get_args(hint) if kind is not type(None)]
        return from_json(kinds[0], value) if len(kinds) == 1 else value
    if origin is list:
        (kind,) = get_args(hint)
        return [from_json(kind, item) for item in value]
    if origin is dict:
        key_kind, kind = get_args(hint)
        return {(int(key) if key_kind is int else key): from_json(kind, item) for key, item in value.items()}
    if isinstance(hint, type) and issubclass(hint, Record):
        return hint.from_json(value)
    if isinstance(hint, type) and is_dataclass(hint):
        return _leaf_from_json(hint, value)
    return value


def _leaf_from_json(cls: type, data: Mapping[str, Any]) -> Any:
    """A `parity.stats` result from its `to_dict()`."""
    hints = _hints(cls)
    return cls(**{spec.name: from_json(hints[spec.name], data[spec.name]) for spec in fields(cls) if spec.name in data})


def _has_default(spec: Field[Any]) -> bool:
    return spec.default is not MISSING or spec.default_factory is not MISSING


class Record:
    """A frozen dataclass written as a JSON object (see the module doc)."""

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for spec in fields(self):  # type: ignore[arg-type]
            meta, value = spec.metadata, getattr(self, spec.name)
            if meta.get("hidden") or (meta.get("omit_if_none") and value is None):
                continue
            if meta.get("omit_if_empty") and value in (None, [], False):
                continue
            if "present_if" in meta and not getattr(self, meta["present_if"]):
                continue
            if meta.get("inline"):
                if value is not None:
                    out.update(to_json(value))
            else:
                out[spec.name] = to_json(value)
        return out

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Self:
        """The record `to_json` writes as `data`: a key left out gives the field's default; a hidden
        switch is true when the keys it governs were written; an inlined dataclass takes its own keys
        among those no other field claims (None when none was written and the field has a default),
        an inlined mapping the keys no other field claims."""
        hints = _hints(cls)  # type: ignore[arg-type]
        specs = fields(cls)  # type: ignore[arg-type]
        values: dict[str, Any] = {}
        for spec in specs:
            if not (spec.metadata.get("hidden") or spec.metadata.get("inline")) and spec.name in data:
                values[spec.name] = from_json(hints[spec.name], data[spec.name])
        for spec in specs:
            governed = [other.name for other in specs if other.metadata.get("present_if") == spec.name]
            if spec.metadata.get("hidden") and governed:
                values[spec.name] = all(name in data for name in governed)
        claimed = {spec.name for spec in specs if not spec.metadata.get("inline")}
        for spec in (spec for spec in specs if spec.metadata.get("inline")):
            hint = hints[spec.name]
            rest = {key: item for key, item in data.items() if key not in claimed}
            kind = _dataclass_of(hint)
            if kind is not None:
                own = {key: item for key, item in rest.items() if key in {field.name for field in fields(kind)}}
                values[spec.name] = from_json(kind, own) if own or not _has_default(spec) else None
                claimed |= set(own)
            else:
                values[spec.name] = from_json(hint, rest)
                claimed |= set(rest)
        return cls(**values)

    def json_item(self, key: str) -> Any:
        """The value this record writes under `key`: a field's, or one of an inlined value's."""
        for spec in fields(self):  # type: ignore[arg-type]
            value = getattr(self, spec.name)
            if spec.metadata.get("hidden"):
                continue
            if not spec.metadata.get("inline"):
                if spec.name == key:
                    return value
            elif isinstance(value, Mapping) and key in value:
                return value[key]
            elif is_dataclass(value) and key in {own.name for own in fields(value)}:
                return getattr(value, key)
        raise KeyError(key)
