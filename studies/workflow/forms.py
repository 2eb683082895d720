"""The researcher's forms: a new study or a draft's edit as the page draws it (its settings and
their checks are `studies.setup.settings_form`'s), a status change."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django import forms
from django.conf import settings

from studies.design.estimates import DesignEstimate
from studies.design.languages import ForeignText, foreign_texts
from studies.errors import StudyError
from studies.models import Study
from studies.setup.settings_form import DESIGN_PREFIX, PANEL_FIELDS, StudySettingsForm
from studies.setup.training_fields import TRAINING_FIELDS
from studies.setup.units import units_plan
from studies.setup.validation import PARTICIPANT_FIELDS, REPORTING_FIELDS, SAMPLING_FIELDS, SCREENING_FIELDS

#: the fields the page draws otherwise than as one line of text (the settings' form leaves every
#: field Django's own widget: what a field reads does not depend on how it is drawn)
WIDGETS: dict[str, Callable[[], forms.Widget]] = {
    "consent_text": lambda: forms.Textarea(attrs={"rows": 8}),
    "instructions_text": lambda: forms.Textarea(attrs={"rows": 8}),
    "closing_questions": lambda: forms.CheckboxSelectMultiple(),
    "practice_questions": lambda: forms.Textarea(attrs={"rows": 10}),
    "comprehension_questions": lambda: forms.Textarea(attrs={"rows": 10}),
}


def drawn_with(field: forms.Field, widget: forms.Widget) -> None:
    """`field` drawn with `widget`, which takes the attributes the field gives its widget (as a widget
    declared with the field does: required, the length and number bounds, the choices)."""
    widget.is_required = field.required
    widget.attrs.update(field.widget_attrs(widget))
    field.widget = widget
    if isinstance(field, forms.ChoiceField):
        field.choices = field.choices  # the field's setter hands its choices to its widget


class StudyForm(StudySettingsForm):
    """The new-study page's form, or a draft's edit: the study's settings and their checks, drawn in
    the page's groups, with the page's estimate, power analysis, language warnings and error list."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        for name, widget in WIDGETS.items():
            drawn_with(self.fields[name], widget())

    def design_fields(self) -> list[forms.BoundField]:
        return [self[name] for name in self.fields if name.startswith(DESIGN_PREFIX)]

    def study_fields(self) -> list[forms.BoundField]:
        return [self[name] for name in ("name", "public_title", "group", "pid_format", "language")]

    def panel_fields(self) -> list[forms.BoundField]:
        return [self[name] for name in ("panel", *PANEL_FIELDS)]

    def text_fields(self) -> list[forms.BoundField]:
        return [self[name] for name in ("consent_text", "instructions_text")]

    def foreign_texts(self) -> list[ForeignText]:
        """The texts participants would read in another language than the one chosen, from what
        the form holds now (warned of before launch)."""
        question = DESIGN_PREFIX + "question"
        return foreign_texts(
            self.definition,
            language=str(self["language"].value() or settings.LANGUAGE_CODE),
            consent_text=str(self["consent_text"].value() or ""),
            instructions_text=str(self["instructions_text"].value() or ""),
            design={"question": str(self[question].value() or "") if question in self.fields else ""},
        )

    def participant_fields(self) -> list[forms.BoundField]:
        return [self[name] for name in PARTICIPANT_FIELDS]

    def reporting_fields(self) -> list[forms.BoundField]:
        return [self[name] for name in REPORTING_FIELDS]

    def screening_fields(self) -> list[forms.BoundField]:
        return [self[name] for name in SCREENING_FIELDS]

    def sampling_fields(self) -> list[forms.BoundField]:
        return [self[name] for name in SAMPLING_FIELDS]

    def shown_power(self) -> dict[str, Any] | None:
        """The power analysis of the design as shown (`studies.design.power`); None while the design does not
        read or its items are not imported."""
        if self.is_bound:
            self.is_valid()
        design = self.chosen_design()
        if design is None:
            return None
        plan = self.plan if self.is_bound else None
        if plan is None:
            try:
                plan = units_plan(benchmark=self.benchmark, design=design, owner=self.owner, sample=self._sample())
            except StudyError:
                return None
        capacity = int(plan.design.get("per_unit", 1))
        from studies.design.power import design_power  # numpy: loaded when a design is shown

        return design_power(
            benchmark=self.benchmark,
            places=[capacity] * len(plan.units),
            unit_sizes=[len(unit) for unit in plan.units],
            exclude=self.study.pk if self.study is not None else None,
        )

    def prolific_fields(self) -> list[forms.BoundField]:
        return [
            self[name]
            for name in ("completion_code", "failed_attention_code", "no_consent_code", "estimated_minutes", "reward")
        ]

    def shown_estimate(self) -> DesignEstimate | None:
        """The estimate of the design as shown: a bound form's is made as the form is checked."""
        if self.is_bound:
            self.is_valid()
        return self.estimate

    def chosen_design(self) -> dict[str, Any] | None:
        """The design the form holds: as typed when bound, else the draft's or the prefilled one;
        None while a design field is wrong (no estimate can be made of it)."""
        base = dict(self.study.design) if self.study is not None else {}
        if not self.is_bound:
            return self.definition.design({**base, **self._prefilled_design()})
        if any(name in self.errors for name in self.fields if name.startswith(DESIGN_PREFIX)):
            return None
        return self.definition.design({**base, **self.design()})

    def error_summary(self) -> list[tuple[str, str, str]]:
        """Every error of the form as (label, the field's element id or "", message), in the page's
        order with the errors of no one field first: listed at the top, each linked to its field."""
        rows = [("", "", str(message)) for message in self.non_field_errors()]
        shown = [
            *self.study_fields(),
            *self.panel_fields(),
            *self.design_fields(),
            *self.text_fields(),
            *self.participant_fields(),
            *self.prolific_fields(),
            *self.screening_fields(),
            *self.sampling_fields(),
            *self.training_fields(),
            *self.reporting_fields(),
        ]
        for field in shown:
            rows += [(str(field.label), f"field-{field.name}", str(message)) for message in field.errors]
        return rows

    def training_fields(self) -> list[forms.BoundField]:
        return [self[name] for name in TRAINING_FIELDS if name in self.fields]


class StatusForm(forms.Form):
    status = forms.ChoiceField(choices=Study.Status.choices)
