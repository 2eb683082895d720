"""The forms that choose a study's items: its benchmark, and a researcher's own items imported from a file."""

from __future__ import annotations

from typing import Any

from django import forms

from parity import benchmarks


class BenchmarkChoiceForm(forms.Form):
    benchmark = forms.ChoiceField(choices=benchmarks.choices)
    #: a set of a researcher's own items to prefill (the link after an import)
    item_set = forms.SlugField(max_length=40, required=False)


def named_set_choices() -> list[tuple[str, str]]:
    return [(name, title) for name, title in benchmarks.choices() if benchmarks.get(name).named_sets]


#: the largest file of one's own items the web page takes (the command takes any size)
MAX_UPLOAD_BYTES = 5 * 1024 * 1024


class ItemSetImportForm(forms.Form):
    """A researcher's own items: the set's name and a CSV or JSONL file (see docs/own-items.md)."""

    benchmark = forms.ChoiceField(choices=named_set_choices, widget=forms.HiddenInput)
    name = forms.SlugField(
        max_length=40,
        label="Name of the item set",
        help_text="lower-case letters, digits, '-' and '_'; importing the same name again updates that set",
    )
    file = forms.FileField(
        label="File (CSV or JSONL)",
        help_text="columns or keys id, text, kind, options, gold, category, ... (every field: docs/own-items.md)",
    )

    def clean_name(self) -> str:
        name = self.cleaned_data["name"]
        if name != name.lower():
            raise forms.ValidationError("Use lower-case letters, digits, '-' and '_'.")
        return name

    def clean_file(self) -> Any:
        upload = self.cleaned_data["file"]
        if not upload.name.lower().endswith((".csv", ".jsonl")):
            raise forms.ValidationError("Upload a .csv or a .jsonl file.")
        if upload.size > MAX_UPLOAD_BYTES:
            raise forms.ValidationError(f"The file is larger than {MAX_UPLOAD_BYTES // (1024 * 1024)} MB.")
        return upload
