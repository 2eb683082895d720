"""Shared result plumbing: JSON-friendly dataclasses and NaN-free summary numbers."""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, fields
from typing import Any, TypeVar

import numpy as np

RowT = TypeVar("RowT")


def finite_or_none(value: float | None) -> float | None:
    """NaN and infinities mean "undefined" in this package; JSON has no spelling for them."""
    if value is None:
        return None
    value = float(value)
    return value if math.isfinite(value) else None


def _jsonable(value: Any) -> Any:
    if isinstance(value, dict):
        return {str(key): _jsonable(inner) for key, inner in value.items()}
    if isinstance(value, list | tuple):
        return [_jsonable(inner) for inner in value]
    if isinstance(value, bool | np.bool_):
        return bool(value)
    if isinstance(value, int | np.integer):
        return int(value)
    if isinstance(value, float | np.floating):
        return finite_or_none(float(value))
    return value


class JsonResult:
    """Mixin for result dataclasses: ``to_dict()`` gives plain JSON values, never NaN."""

    def to_dict(self) -> dict[str, Any]:
        payload: dict[str, Any] = _jsonable(asdict(self))  # type: ignore[call-overload]
        return payload


def mean_std(values: Sequence[float] | np.ndarray, *, ddof: int = 0) -> tuple[float | None, float | None]:
    """Mean and standard deviation; None where undefined (no values) and the std None with fewer
    than two values: one value has no spread, and a population std of 0.0 beside it would print
    as "± 0.0", a spread measured where there is none."""
    if len(values) == 0:
        return None, None
    data = np.asarray(values, dtype=float)
    std = float(data.std(ddof=ddof)) if data.size > max(ddof, 1) else None
    return float(data.mean()), std


def mean_of_present(values: Iterable[float | None]) -> float | None:
    """The mean of the values that are not None; None when there are none."""
    return mean_std([float(value) for value in values if value is not None])[0]


def coerce_rows(cls: type[RowT], rows: Iterable[RowT | Mapping[str, Any]]) -> list[RowT]:
    """Accept dataclass instances of ``cls`` or mappings with its field names (extras ignored)."""
    names = [f.name for f in fields(cls)]  # type: ignore[arg-type]
    coerced: list[RowT] = []
    for row in rows:
        if isinstance(row, cls):
            coerced.append(row)
        else:
            mapping: Mapping[str, Any] = row  # type: ignore[assignment]
            coerced.append(cls(**{name: mapping[name] for name in names if name in mapping}))
    return coerced
