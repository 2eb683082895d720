"""A figure of the report: a value taken from the results tree (`results.computing.tree.StudyResults`), where
it was taken from (its path in the tree's JSON), and how it is written. The report's texts are built
of plain words and figures, so a test can hold every figure against `study_results --json` (the
same path, the same value) and find no number in a text that is not one."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, fields, is_dataclass
from typing import Any, TypeVar, cast

from prolific.currency import symbol
from results.computing.tree import Node, StudyResults
from results.presenting.tables import pct, signed_pct

#: a key path into the results' JSON: ("methods", "pay", "reward_pence"), ("models", 0, "accuracy")
Path = tuple[str | int, ...]


def whole(value: Any) -> str:
    return f"{value:,}" if isinstance(value, int) else str(value)


def decimal(value: Any) -> str:
    return "—" if value is None else f"{value:.2f}"


def p_value(value: Any) -> str:
    if value is None:
        return "—"
    return "< 0.001" if value < 0.001 else f"{value:.3f}"


def p_is(value: Any) -> str:
    """A p-value after "p" in a sentence: "= 0.012" or "< 0.001" (never "= < 0.001")."""
    if value is None:
        return "not computed"
    return "< 0.001" if value < 0.001 else f"= {value:.3f}"


def minor(value: Any) -> str:
    """An amount in the smallest unit of its currency (pence, cents), in the whole unit."""
    return "—" if value is None else f"{value / 100:.2f}"


def currency(value: Any) -> str:
    """What goes before an amount in this currency: "£" for GBP, "$" for USD."""
    return symbol(str(value or ""))


def one_decimal(value: Any) -> str:
    return "—" if value is None else f"{value:.1f}"


def day(value: Any) -> str:
    """An ISO date-time as its date (the day data collection began or ended)."""
    return "—" if value is None else str(value)[:10]


def level(value: Any) -> str:
    """A CI's level (0.95) as a percentage without decimals."""
    return f"{100 * value:.0f}%"


def points(value: Any) -> str:
    """A gap's size (a share, either sign) in percentage points: "9.3 points"."""
    return "—" if value is None else f"{100 * abs(value):.1f} points"


def text(value: Any) -> str:
    return str(value)


def phrase(value: Any) -> str:
    """A text set inside a sentence (a researcher's reason, followed by ": 3"): without its own closing
    full stop, which would stand before the sentence's next mark (".:")."""
    words = str(value).rstrip()
    return words[:-1] if words.endswith(".") and not words.endswith("..") else words


def setting(value: Any) -> str:
    """A design setting's value: yes or no for a switch."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    return whole(value) if isinstance(value, int) else str(value)


def switch(value: Any) -> str:
    """A design setting that is a switch: on or off."""
    return "on" if value else "off"


#: how each kind of figure is written; the test writes the JSON's value the same way
KINDS: dict[str, Callable[[Any], str]] = {
    "pct": pct,
    "signed_pp": signed_pct,
    "int": whole,
    "num": decimal,
    "p": p_value,
    "p_is": p_is,
    "minor": minor,
    "currency": currency,
    "one": one_decimal,
    "day": day,
    "level": level,
    "text": text,
    "phrase": phrase,
    "setting": setting,
    "switch": switch,
    "points": points,
}


@dataclass(frozen=True)
class Figure:
    path: Path
    value: Any
    kind: str

    @property
    def text(self) -> str:
        return KINDS[self.kind](self.value)


#: a text of the report: plain words (str) and figures
Part = str | Figure


def at(results: StudyResults, path: Path) -> Any:
    """The value at `path`, a path of the results' JSON, in the results tree: a node's keys are its
    fields (`Node.json_item`), a `parity.stats` leaf's its attributes, a list's its indices."""
    value: Any = results
    for key in path:
        if isinstance(value, Node):
            value = value.json_item(str(key))
        elif is_dataclass(value) and isinstance(key, str) and key in {spec.name for spec in fields(value)}:
            value = getattr(value, key)
        else:
            value = value[key]
    return value


T = TypeVar("T")


class _Traced:
    """A value of the results tree with its path in the tree's JSON, standing in for the value in a
    figure's reading (`traced`): an attribute read gives the field's value and adds its JSON key,
    the field's name, or nothing for a field written into its node (`INLINE`, as `Node.to_json`
    writes it); an index adds the index. Its own names begin with an underscore, which no field's
    does (a field named `value` is read as one)."""

    __slots__ = ("_path", "_value")

    def __init__(self, value: Any, path: Path) -> None:
        self._value = value
        self._path = path

    def __getattr__(self, name: str) -> _Traced:
        value = self._value
        inline = is_dataclass(value) and any(
            spec.name == name and spec.metadata.get("inline") for spec in fields(value)
        )
        return _Traced(getattr(value, name), self._path if inline else (*self._path, name))

    def __getitem__(self, key: int) -> _Traced:
        return _Traced(self._value[key], (*self._path, key))


def traced(results: StudyResults) -> StudyResults:
    """The results tree read by attribute for figures: what an attribute read on it gives is only to
    be handed to `figure`, which takes the value and the path it was read at (`t.tree.methods.pay.currency`
    is the value at ("methods", "pay", "currency")); a sentence's own decisions read the tree itself."""
    return cast(StudyResults, _Traced(results, ()))


def figure(read: object, kind: str) -> Figure:
    """The figure read from the traced tree (`traced`), with its path in the tree's JSON, which a report
    prints beside it and a test holds against `study_results --json` (`at`)."""
    if not isinstance(read, _Traced):
        raise TypeError("a figure is read from the traced results tree")
    return Figure(read._path, read._value, kind)


def present(value: T | None) -> T:
    """`value`, which the sentence reading it has found set: a figure read from an optional node."""
    if value is None:
        raise ValueError("a figure is read from a node the results do not have")
    return value


def plain(parts: list[Part]) -> str:
    """A text as plain characters (figures written out)."""
    return "".join(part.text if isinstance(part, Figure) else part for part in parts)


def series(items: list[list[Part]], last: str = " and ") -> list[Part]:
    """Parts joined as "a, b and c" (or, with `last=" or "`, "a, b or c")."""
    out: list[Part] = []
    for index, item in enumerate(items):
        if index:
            out.append(last if index == len(items) - 1 else ", ")
        out.extend(item)
    return out
