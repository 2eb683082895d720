"""The forms that choose a study's items: its benchmark, and a researcher's own items imported from a file."""

from __future__ import annotations

from typing import Any

from django import forms

from annotation.selectors import inspect_task_file_allowed
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


class InspectTaskImportForm(forms.Form):
    """An Inspect task's samples as an item set: a task of an installed package (package/name) or
    a task file in one of the operator's PARITY_INSPECT_TASK_DIRS (its code runs)."""

    task = forms.CharField(
        max_length=300,
        label="Inspect task",
        help_text="package/name of an installed package's task (inspect_evals/gpqa_diamond), or "
        "file.py@name in a folder the operator allowed (PARITY_INSPECT_TASK_DIRS)",
    )
    arguments = forms.CharField(
        required=False,
        widget=forms.Textarea(attrs={"rows": 2}),
        label="Task arguments",
        help_text="one name=value a line, as `inspect eval -T name=value` takes them",
    )
    inspect_name = forms.SlugField(
        max_length=40, required=False, label="Name of the item set", help_text="blank: the task's name"
    )
    limit = forms.IntegerField(min_value=1, required=False, label="Only the first N samples")

    def clean_task(self) -> str:
        task = self.cleaned_data["task"].strip()
        if inspect_task_file_allowed(task):
            return task
        if not task.partition("@")[0].endswith(".py"):
            raise forms.ValidationError("Give package/name, or file.py@name in an allowed folder.")
        raise forms.ValidationError(
            "This task file is not in a folder the operator allowed (PARITY_INSPECT_TASK_DIRS): "
            "import it with manage.py import_inspect_task, or ask for its folder to be allowed."
        )

    def clean_arguments(self) -> list[str]:
        return [line.strip() for line in self.cleaned_data["arguments"].splitlines() if line.strip()]
