"""The results filters (unit, category, model, setting, flagged participants) and the item view's input,
validated like any other input."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from django import forms

from modelruns.models import ModelRun
from parity.reporting.checklist import COMPUTED, Answer, Status
from results.computing.checklist.answering import PUBLIC_ADDRESS
from results.loading.filters import ResultFilters
from results.loading.study_data import StudyData
from results.presenting.report import FORMATS as REPORT_FORMATS
from studies.bounds import MAX_ORIGINAL_TEXT, MAX_PAGE
from studies.setup.checklist import NOTE_MAX_CHARS, ORIGINAL_FIELDS, REASON_MAX_CHARS


def filter_choices(data: StudyData) -> dict[str, list[str]]:
    return {
        "unit": [unit.label for unit in data.units],
        "category": data.categories,
        "model": sorted({run.model for run in data.runs}),
        "setting": sorted({run.setting_label for run in data.runs}),
    }


class ResultsFilterForm(forms.Form):
    """GET filters of a results page; the choices are the study's own units, categories and runs."""

    unit = forms.ChoiceField(required=False)
    category = forms.ChoiceField(required=False)
    model = forms.ChoiceField(required=False)
    setting = forms.ChoiceField(required=False)
    flagged = forms.ChoiceField(
        required=False,
        label="Flagged participants",
        choices=[("include", "With flagged participants"), ("exclude", "Without flagged participants")],
        help_text="flags never exclude by themselves: compare the results with and without them",
    )

    def __init__(self, *args, data_for: StudyData, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        everything = {
            "unit": "All units",
            "category": "All categories",
            "model": "All models",
            "setting": "All settings",
        }
        for name, values in filter_choices(data_for).items():
            field = self.fields[name]
            assert isinstance(field, forms.ChoiceField)  # every filter with choices is one
            field.choices = [("", everything[name])] + [(value, value) for value in values]
        field_name = data_for.category_field
        if field_name:
            self.fields["category"].label = field_name.replace("_", " ").capitalize()

    def filters(self) -> ResultFilters:
        """The cleaned filters; call after `is_valid()`."""
        chosen = {name: self.cleaned_data.get(name) or None for name in self.fields}
        # "include" is what no filter means: one name for it keeps one kept result for it
        chosen["flagged"] = "exclude" if chosen["flagged"] == "exclude" else None
        return ResultFilters(**chosen)


class ItemPromptForm(forms.Form):
    """GET input of the item view: the item (a key, or its place from 1 among the study's items) and
    the run whose setting and kind of model read it (blank: the benchmark's default setting)."""

    item = forms.CharField(max_length=200, strip=True)
    run = forms.TypedChoiceField(required=False, coerce=int, empty_value=None, label="Model run")

    def __init__(self, *args, runs: list[ModelRun], **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.runs = {run.pk: run for run in runs}
        field = self.fields["run"]
        assert isinstance(field, forms.ChoiceField)  # the `run` field above
        field.choices = [("", "the benchmark's default setting")] + [
            (run.pk, f"{run.spec.name} ({run.setting_label()}) #{run.pk}") for run in runs
        ]

    def chosen_run(self) -> ModelRun | None:
        """The chosen run; call after `is_valid()`."""
        chosen = self.cleaned_data.get("run")
        return self.runs[chosen] if chosen is not None else None


class ReportForm(forms.Form):
    """GET input of the report download: its format."""

    format = forms.ChoiceField(choices=[(name, name) for name in REPORT_FORMATS])


def _field_name(entry_id: str) -> str:
    return "entry_" + entry_id.replace(".", "_")


class ChecklistNotesForm(forms.Form):
    """The researcher's answers to the checklist's entries Parity leaves unanswered (or answers only
    from an earlier note): one text box each, labelled with the entry's number and question."""

    def __init__(self, *args, answers: Sequence[Answer], notes: Mapping[str, str], **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.entries: dict[str, str] = {}
        for answer in answers:
            # an entry Parity answers takes no note, but for those only the researchers can complete
            # with a public address (a registration, the data's) and the notes already written
            if answer.status is Status.ANSWERED and answer.entry.id not in notes.keys() | PUBLIC_ADDRESS:
                continue
            name = _field_name(answer.entry.id)
            self.entries[name] = answer.entry.id
            self.fields[name] = forms.CharField(
                required=False,
                max_length=NOTE_MAX_CHARS,
                label=f"{answer.entry.id} {answer.entry.question}",
                help_text=answer.source,
                initial=notes.get(answer.entry.id, ""),
                widget=forms.Textarea(attrs={"rows": 2}),
            )

    def notes(self) -> dict[str, str]:
        return {entry_id: self.cleaned_data[name] for name, entry_id in self.entries.items()}


class ChecklistCorrectionForm(forms.Form):
    """A correction of an answer Parity computed: the entry (among those Parity answered), the
    researcher's answer and the reason, both required; "remove" goes back to Parity's answer."""

    entry = forms.ChoiceField(label="Entry")
    text = forms.CharField(
        label="Corrected answer", max_length=NOTE_MAX_CHARS, widget=forms.Textarea(attrs={"rows": 2})
    )
    reason = forms.CharField(
        label="Reason",
        max_length=REASON_MAX_CHARS,
        help_text="why Parity's answer is wrong for this study (the paper's page, a record Parity lacks); "
        "shown with the correction",
        widget=forms.Textarea(attrs={"rows": 2}),
    )

    def __init__(self, *args, answers: Sequence[Answer], **kwargs) -> None:
        super().__init__(*args, **kwargs)
        field = self.fields["entry"]
        assert isinstance(field, forms.ChoiceField)  # the `entry` field above
        field.choices = [
            (answer.entry.id, f"{answer.entry.id} {answer.entry.question}")
            for answer in answers
            if answer.source == COMPUTED or answer.is_corrected
        ]


class OriginalStudyForm(forms.Form):
    """An imported study's original study as its paper describes it: for each of its fields
    (`studies.setup.checklist.ORIGINAL_FIELDS`) the paper's words and the page they are on."""

    def __init__(self, *args, original: Mapping[str, Mapping[str, str]], **kwargs) -> None:
        super().__init__(*args, **kwargs)
        for name, label in ORIGINAL_FIELDS.items():
            said = original.get(name, {})
            self.fields[name] = forms.CharField(
                required=False,
                max_length=MAX_ORIGINAL_TEXT,
                label=f"The original study's {name}",
                help_text=label,
                initial=said.get("text", ""),
                widget=forms.Textarea(attrs={"rows": 2}),
            )
            self.fields[f"{name}_page"] = forms.CharField(
                required=False,
                max_length=MAX_PAGE,
                label="Page of the original paper",
                initial=said.get("page", ""),
            )

    def original(self) -> dict[str, tuple[str, str]]:
        """Each field's text and page; call after `is_valid()`."""
        return {name: (self.cleaned_data[name], self.cleaned_data[f"{name}_page"]) for name in ORIGINAL_FIELDS}
