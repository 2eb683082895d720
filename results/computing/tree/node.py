"""The tree's node: a frozen dataclass turned into JSON by `to_json` and read back by `from_json`,
with the field metadata the package's docstring lists."""

from __future__ import annotations

import functools
import types
from collections.abc import Mapping
from dataclasses import fields, is_dataclass
from typing import Any, Self, Union, get_args, get_origin, get_type_hints

from parity.records import Record

#: the metadata of a field written only when not None
OMIT_IF_NONE = {"omit_if_none": True}
#: the metadata of a field written only when set: not None, an empty list or False (as
#: `studies.design.screening.Screening.to_json` stores a prescreening)
OMIT_IF_EMPTY = {"omit_if_empty": True}
#: the metadata of a field never written
HIDDEN = {"hidden": True}
#: the metadata of a mapping written into its node
INLINE = {"inline": True}


def to_json(value: Any) -> Any:
    """The JSON value of a node of the tree (or of anything in it: a benchmark's record
    (`parity.records`) its `to_json()`, a `parity.stats` leaf its `to_dict()`, a tuple a list)."""
    if isinstance(value, Node | Record):
        return value.to_json()
    if is_dataclass(value) and not isinstance(value, type):
        return value.to_dict()  # type: ignore[attr-defined]
    if isinstance(value, Mapping):
        return {key: to_json(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [to_json(item) for item in value]
    return value


def from_json(hint: Any, value: Any) -> Any:
    """The value of type `hint` (a field's annotation) that `to_json` writes as `value`: the inverse
    of `to_json` on the tree's types (its nodes, `parity.stats` leaves, lists, JSON mappings)."""
    if value is None:
        return None
    origin = get_origin(hint)
    if origin is Union or origin is types.UnionType:
        kinds = [kind for kind in get_args(hint) if kind is not type(None)]
        return from_json(kinds[0], value) if len(kinds) == 1 else value
    if origin is list:
        (kind,) = get_args(hint)
        return [from_json(kind, item) for item in value]
    if isinstance(hint, type) and issubclass(hint, Node):
        return hint.from_json(value)
    if isinstance(hint, type) and is_dataclass(hint):
        return _leaf_from_json(hint, value)
    return value


@functools.cache
def _hints(cls: type) -> dict[str, Any]:
    """The resolved annotations of a node or leaf class: resolving them evaluates every annotation's
    text, and a large study's tree reads hundreds of nodes of the same few classes."""
    return get_type_hints(cls)


def _leaf_from_json(cls: type, data: Mapping[str, Any]) -> Any:
    """A `parity.stats` result from its `to_dict()`."""
    hints = _hints(cls)
    return cls(**{spec.name: from_json(hints[spec.name], data[spec.name]) for spec in fields(cls) if spec.name in data})


class Node:
    """A dataclass of the tree: written as a JSON object, one key per field (see the module doc)."""

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Self:
        """The node `to_json` writes as `data`: a key left out gives the field's default (None), a
        hidden switch is true when the keys it governs were written, and an inlined value takes
        the keys no other field claims (a `parity.stats` leaf only its own)."""
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
            if isinstance(hint, type) and is_dataclass(hint):
                rest = {key: item for key, item in rest.items() if key in {own.name for own in fields(hint)}}
            values[spec.name] = from_json(hint, rest)
            claimed |= set(rest)
        return cls(**values)

    def json_item(self, key: str) -> Any:
        """The value this node writes under `key`: a field's, or one of an inlined value's."""
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
                out.update(to_json(value))
            else:
                out[spec.name] = to_json(value)
        return out
