"""Frozen dataclasses written as JSON objects, one key per field in field order, and read back.

A benchmark's own sections of the results (`parity.benchmarks.sections`) are such records: the
results tree writes them with `Record.to_json` and reads them with `Record.from_json`, key for key
the JSON the sections had as plain mappings. A field's metadata may say:

- `omit_if_none`: the key is left out when the value is None (a section the study has not);
- `inline`: the value's keys are written into the record itself: a record's fields (left out when it
  is None), a `parity.stats` result's, or a mapping's, which on reading takes the keys no other field
  claims.

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
            value = getattr(self, spec.name)
            if spec.metadata.get("omit_if_none") and value is None:
                continue
            if spec.metadata.get("inline"):
                if value is not None:
                    out.update(to_json(value))
            else:
                out[spec.name] = to_json(value)
        return out

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Self:
        """The record `to_json` writes as `data`: a key left out gives the field's default; an inlined
        dataclass takes its own keys (None when none was written), an inlined mapping the keys no
        other field claims."""
        hints = _hints(cls)  # type: ignore[arg-type]
        specs = fields(cls)  # type: ignore[arg-type]
        values: dict[str, Any] = {}
        for spec in specs:
            if not spec.metadata.get("inline") and spec.name in data:
                values[spec.name] = from_json(hints[spec.name], data[spec.name])
        claimed = {spec.name for spec in specs if not spec.metadata.get("inline")}
        for spec in (spec for spec in specs if spec.metadata.get("inline")):
            hint = hints[spec.name]
            kind = _dataclass_of(hint)
            if kind is not None:
                own = {key: item for key, item in data.items() if key in {field.name for field in fields(kind)}}
                values[spec.name] = from_json(kind, own) if own or not _has_default(spec) else None
                claimed |= set(own)
            else:
                rest = {key: item for key, item in data.items() if key not in claimed}
                values[spec.name] = from_json(hint, rest)
                claimed |= set(rest)
        return cls(**values)
