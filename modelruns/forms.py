"""Starting model runs from the study's runs partial (and parsing `k=v` settings anywhere)."""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from django import forms

from modelruns.models import ModelSpec
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
    setting = forms.CharField(max_length=500, required=False, help_text="key=value pairs, e.g. template=2 k=5")
    sweep = forms.BooleanField(required=False, help_text="one run per setting of the paper's grid")

    def __init__(self, *args: Any, study: Study, **kwargs: Any) -> None:
        # its own ids: the results page, which loads this form, has filters named model and setting
        super().__init__(*args, auto_id="run_%s", **kwargs)
        self.study = study
        self.fields[
            "setting"
        ].help_text += f" (default: {study.definition.model_setting_label(study.definition.model_setting())})"

    def clean_setting(self) -> dict[str, str]:
        try:
            pairs = parse_setting_pairs([self.cleaned_data.get("setting", "")])
            self.study.definition.model_setting(pairs)
        except ValueError as exc:
            raise forms.ValidationError(str(exc)) from exc
        return pairs

    def clean_device(self) -> str:
        return self.cleaned_data.get("device", "").strip() or "auto"

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean()
        kind = cleaned.get("kind")
        if kind and kind not in self.study.definition.model_kinds:
            self.add_error(
                "kind", f"{self.study.definition.title} takes {' or '.join(self.study.definition.model_kinds)} models"
            )
        return cleaned
