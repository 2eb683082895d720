"""A model setting's value as its benchmark declares it: text from a form or a command line read
as the type of the setting's default."""

from __future__ import annotations

from typing import Any


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
