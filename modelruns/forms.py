"""Starting model runs from the study's runs partial (its settings are fields built from the
benchmark's declared options), and parsing `k=v` settings for the commands."""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from django import forms
from django.http import QueryDict

from modelruns.models import ModelSpec
from modelruns.services_inspect_eval import study_inspect_task_named
from modelruns.sources import model_name_problem
from parity.benchmarks.design import DesignOption
from studies.design.option_fields import option_field
from studies.models import Study


def parse_setting_pairs(values: Iterable[str]) -> dict[str, str]:
    """`["template=2", "k=5"]` or `["template=2 k=5"]` -> {"template": "2", "k": "5"}."""
    pairs: dict[str, str] = {}
    for value in values:
        for token in re.split(r"[\s,;]+", value.strip()):
            if not token:
                continue
            key, sep, text = token.partition("=")
            if not sep or not key.strip():
                raise ValueError(f"{token!r} is not key=value")
            pairs[key.strip()] = text.strip()
    return pairs


#: the run form's fields of the benchmark's model settings are named SETTING_PREFIX + key
SETTING_PREFIX = "setting_"


def setting_field(option: DesignOption, default: Any) -> forms.Field:
    """A model setting's field, as declared by the benchmark; blank (or absent) means the default."""
    field = option_field(option, default)
    field.required = False
    if option.kind == "choice":
        allowed = ", ".join(str(value) for value, _ in option.choices)
        field.error_messages["invalid_choice"] = f"{option.label} must be one of {allowed}, not %(value)s."
    if option.kind != "bool":
        field.help_text = " ".join(filter(None, [str(field.help_text), f"(default: {default})"]))
    return field


class RunStartForm(forms.Form):
    model = forms.CharField(
        max_length=500, initial="smollm2", help_text="a Hugging Face id, a local path, or an alias (smollm2)"
    )
    # models behind an API are set up by the operator (`manage.py run_model --kind api`), who
    # decides which servers the workers may send prompts and keys to
    kind = forms.ChoiceField(
        choices=[c for c in ModelSpec.Kind.choices if c[0] != ModelSpec.Kind.API], initial=ModelSpec.Kind.CAUSAL
    )
    revision = forms.CharField(max_length=100, required=False)
    dtype = forms.ChoiceField(choices=ModelSpec.Dtype.choices, initial=ModelSpec.Dtype.FLOAT32)
    device = forms.CharField(max_length=20, initial="auto", required=False)
    sweep = forms.BooleanField(
        required=False,
        help_text="one run per setting of the paper's grid; a setting changed above applies to every run of it",
    )

    def __init__(self, data: QueryDict | None = None, *, study: Study) -> None:
        # its own ids: the results page, which loads this form, has filters named model and setting
        super().__init__(data, auto_id="run_%s")
        self.study = study
        self.definition = study.definition
        defaults = self.definition.model_setting()
        sweep = self.fields.pop("sweep")
        for option in self.definition.model_setting_options:
            self.fields[SETTING_PREFIX + option.key] = setting_field(option, defaults[option.key])
        self.fields["sweep"] = sweep  # after the settings it qualifies
        #: the name and spec of the Inspect task the study's items came from, where they did (a run may go through it)
        self.inspect_task = study_inspect_task_named(study) if self.definition.named_sets and study.pk else None
        if self.inspect_task is not None:
            self.fields["through_inspect"] = forms.BooleanField(
                required=False,
                label=f"Through the Inspect task {self.inspect_task.name}",
                help_text="Inspect's own solvers and scorer ask the model (its hf/ provider, on a worker); "
                "the run appears when its log is in",
            )

    def spec_fields(self) -> list[forms.BoundField]:
        """Which model, and how it is loaded (and, for items of an Inspect task, whether through it)."""
        names = ["model", "kind", "revision", "dtype", "device"]
        return [self[name] for name in [*names, *(["through_inspect"] if "through_inspect" in self.fields else [])]]

    def setting_fields(self) -> list[forms.BoundField]:
        """The benchmark's model settings, one field each."""
        return [self[name] for name in self.fields if name.startswith(SETTING_PREFIX)]

    def default_setting_label(self) -> str:
        return self.definition.model_setting_label(self.definition.model_setting())

    def clean_model(self) -> str:
        model = self.cleaned_data["model"].strip()
        problem = model_name_problem(model)
        if problem is not None:
            raise forms.ValidationError(problem)
        return model

    def clean_device(self) -> str:
        return self.cleaned_data.get("device", "").strip() or "auto"

    def setting_overrides(self) -> dict[str, Any]:
        """The settings chosen other than their default (with a sweep, they apply to every run of
        the grid; the grid's own settings stay as the paper has them otherwise)."""
        return {
            option.key: self.cleaned_data[name]
            for option in self.definition.model_setting_options
            if (name := SETTING_PREFIX + option.key) in self.changed_data
            and self.cleaned_data.get(name) not in (None, "")
        }

    def clean(self) -> dict[str, Any]:
        super().clean()
        cleaned = self.cleaned_data
        kind = cleaned.get("kind")
        if kind and kind not in self.definition.model_kinds:
            self.add_error("kind", f"{self.definition.title} takes {' or '.join(self.definition.model_kinds)} models")
        if not self.errors:
            try:  # combinations a single field cannot judge (e.g. a contrastive template)
                self.definition.model_setting(self.setting_overrides())
            except ValueError as exc:
                self.add_error(None, str(exc))
        return cleaned


#: the largest Inspect log the runs page takes (the command takes any size)
MAX_LOG_BYTES = 50 * 1024 * 1024


class InspectLogForm(forms.Form):
    """An Inspect eval log to import as a run (`modelruns.services_inspect`)."""

    log = forms.FileField(
        label="Inspect log (.eval or .json)",
        help_text="the log `inspect eval` wrote for a task the study's items were imported from",
    )
    scorer = forms.CharField(
        max_length=200, required=False, help_text="whose scores to read, when the task has several (blank: its first)"
    )

    def __init__(self, data: QueryDict | None = None, files: Any = None) -> None:
        # its own ids: the results page, which loads this form, has fields of its own
        super().__init__(data, files, auto_id="inspect_%s")

    def clean_log(self) -> Any:
        upload = self.cleaned_data["log"]
        if not upload.name.lower().endswith((".eval", ".json")):
            raise forms.ValidationError("Upload the .eval or .json file Inspect wrote.")
        if upload.size > MAX_LOG_BYTES:
            raise forms.ValidationError(f"The file is larger than {MAX_LOG_BYTES // (1024 * 1024)} MB.")
        return upload

    def clean_scorer(self) -> str | None:
        return self.cleaned_data.get("scorer", "").strip() or None
