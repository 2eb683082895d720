"""The options a benchmark declares for its studies and its model runs (pure Python: no Django import).

A benchmark lists the settings of its study design a researcher may choose (`design_options`):
what each is called, its kind and bounds, and a sentence of help. The default of each option is the
benchmark's `default_design` value (the paper's design). The web form is generated from this list,
and `design_errors` says in words what is wrong with chosen values before any unit is built.

The settings of a model run are declared the same way (`model_setting_options`, defaults in
`default_model_setting`): the run form's fields are generated from them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

KINDS = ("int", "bool", "choice", "text")


@dataclass(frozen=True)
class DesignOption:
    key: str
    label: str
    kind: str = "int"
    help: str = ""
    minimum: int | None = None
    maximum: int | None = None
    #: (value, label) pairs of a "choice" option; values have the type the design stores
    choices: tuple[tuple[Any, str], ...] = ()

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"design option {self.key!r}: kind must be one of {', '.join(KINDS)}")
        if self.kind == "choice" and not self.choices:
            raise ValueError(f"design option {self.key!r}: a choice needs its choices")

    def error(self, value: Any) -> str:
        """What is wrong with `value` for this option, in words ("" when nothing is)."""
        if self.kind == "int":
            if isinstance(value, bool) or not isinstance(value, int):
                return f"{self.label} must be a whole number."
            if self.minimum is not None and value < self.minimum:
                return f"{self.label} must be at least {self.minimum} (you chose {value})."
            if self.maximum is not None and value > self.maximum:
                return f"{self.label} can be at most {self.maximum} (you chose {value})."
        elif self.kind == "bool" and not isinstance(value, bool):
            return f"{self.label} must be yes or no."
        elif self.kind == "choice" and value not in [choice for choice, _ in self.choices]:
            allowed = ", ".join(label for _, label in self.choices)
            return f"{self.label} must be one of: {allowed}."
        elif self.kind == "text" and not isinstance(value, str):
            return f"{self.label} must be text."
        return ""


def design_errors(options: Sequence[DesignOption], design: Mapping[str, Any]) -> dict[str, str]:
    """Per option key, what is wrong with the chosen design; empty when it can be built.

    Besides each option's own bounds: an exclusion threshold no participant could reach (more
    failures than attention checks) is refused, since it would silently exclude nobody."""
    errors = {option.key: option.error(design[option.key]) for option in options if option.key in design}
    errors = {key: message for key, message in errors.items() if message}
    checks, threshold = design.get("attention_checks", 0), design.get("exclude_at", 0)
    if "exclude_at" not in errors and isinstance(checks, int) and isinstance(threshold, int) and threshold > checks:
        errors["exclude_at"] = (
            f"Exclusion at {threshold} failed checks can never happen with {checks} attention "
            f"check{'s' if checks != 1 else ''} per participant; choose at most {checks} "
            f"(0: never exclude)."
        )
    return errors


class ShortPool(ValueError):
    """The units a design asks for need more items than there are to cut them from: `units` of
    `size` need `units × size`, `found` there are (`pool`: what they are called, "test items").
    The design option to correct is `unit_size`."""

    option = "unit_size"

    def __init__(self, units: int, size: int, found: int, pool: str = "items", noun: str = "items") -> None:
        self.units, self.size, self.found, self.pool, self.noun = units, size, found, pool, noun
        super().__init__(
            f"{self.what} need {self.needed} {pool}; only {found} {'is' if found == 1 else 'are'} imported"
        )

    @property
    def what(self) -> str:
        """ "3 units of 15 items"."""
        return f"{self.units} unit{'s' if self.units != 1 else ''} of {self.size} {self.noun}"

    @property
    def needed(self) -> int:
        return self.units * self.size
