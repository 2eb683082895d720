"""How the runs panel writes a queue place and a length of time."""

from __future__ import annotations

from django import template

register = template.Library()


@register.filter
def ordinal(number: int) -> str:
    """1 -> "1st", 2 -> "2nd", 11 -> "11th", 23 -> "23rd"."""
    if 10 <= number % 100 <= 20:
        suffix = "th"
    else:
        suffix = {1: "st", 2: "nd", 3: "rd"}.get(number % 10, "th")
    return f"{number}{suffix}"


@register.filter
def seconds(value: float | None) -> str:
    """A length of time to the second: "42 s", "3 min 05 s", "2 h 03 min"; "—" for none."""
    if value is None:
        return "—"
    total = int(value)
    hours, rest = divmod(total, 3600)
    minutes, secs = divmod(rest, 60)
    if hours:
        return f"{hours} h {minutes:02d} min"
    if minutes:
        return f"{minutes} min {secs:02d} s"
    return f"{secs} s"
