"""The form field of an option a benchmark declares (`parity.benchmarks.design.DesignOption`): a
study design's option on the new-study form and the API, a model run's setting on the runs form.
The field holds the option's bounds and says what is wrong in the option's own words."""

from __future__ import annotations

from typing import Any

from django import forms

from parity.benchmarks.design import DesignOption
from studies.bounds import MAX_DESIGN_TEXT, MAX_INTEGER


def option_field(option: DesignOption, default: Any) -> forms.Field:
    """The form field of an option a benchmark declares (a study design's or a model run's setting)."""
    common = {"label": option.label, "help_text": option.help, "initial": default}
    if option.kind == "int":
        return forms.IntegerField(
            min_value=option.minimum,
            max_value=option.maximum if option.maximum is not None else MAX_INTEGER,
            **common,
            error_messages={
                "min_value": f"{option.label} must be at least %(limit_value)s.",
                "max_value": f"{option.label} can be at most %(limit_value)s.",
                "required": f"{option.label} is needed.",
                "invalid": f"{option.label} must be a whole number.",
            },
        )
    if option.kind == "bool":
        return forms.BooleanField(required=False, **common)
    if option.kind == "choice":
        by_text = {str(value): value for value, _ in option.choices}
        return forms.TypedChoiceField(
            choices=[(str(value), label) for value, label in option.choices],
            coerce=by_text.__getitem__,
            **{**common, "initial": str(default)},
        )
    return forms.CharField(required=False, max_length=MAX_DESIGN_TEXT, **common)
