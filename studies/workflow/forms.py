"""The researcher's forms: a new study or a draft's edit (its design fields generated from the
benchmark's declared options), a status change, a preview answer."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from django import forms
from django.conf import settings

from parity import benchmarks
from parity.benchmarks.design import DesignOption
from studies import closing
from studies.languages import ForeignText, foreign_texts
from studies.models import Study
from studies.pay import PROLIFIC_MINIMUM_PENCE_PER_HOUR, hourly_pay
from studies.services_edit import DRAFT_FIELDS

DESIGN_PREFIX = "design_"


class BenchmarkChoiceForm(forms.Form):
    benchmark = forms.ChoiceField(choices=benchmarks.choices)
    #: a set of a researcher's own items to prefill (the link after an import)
    item_set = forms.SlugField(max_length=40, required=False)


def named_set_choices() -> list[tuple[str, str]]:
    return [(name, title) for name, title in benchmarks.choices() if benchmarks.get(name).named_sets]


#: the largest file of one's own items the web page takes (the command takes any size)
MAX_UPLOAD_BYTES = 5 * 1024 * 1024


class ItemSetImportForm(forms.Form):
    """A researcher's own items: the set's name and a CSV or JSONL file (see the README)."""

    benchmark = forms.ChoiceField(choices=named_set_choices, widget=forms.HiddenInput)
    name = forms.SlugField(
        max_length=40,
        label="Name of the item set",
        help_text="lower-case letters, digits, '-' and '_'; importing the same name again updates that set",
    )
    file = forms.FileField(
        label="File (CSV or JSONL)",
        help_text="columns or keys id, text, kind, options, gold, category, ... (see the README)",
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


def option_field(option: DesignOption, default: Any) -> forms.Field:
    """The form field of an option a benchmark declares (a study design's or a model run's setting)."""
    common = {"label": option.label, "help_text": option.help, "initial": default}
    if option.kind == "int":
        return forms.IntegerField(
            min_value=option.minimum,
            max_value=option.maximum,
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
    return forms.CharField(required=False, max_length=500, **common)


#: the study's own fields the form shows, in the form's order (the reward is shown in pounds)
STUDY_FIELDS = tuple(name for name in DRAFT_FIELDS if name != "reward_pence")


def study_initial(study: Study) -> dict[str, Any]:
    """The form's values for an existing study: its fields, its reward in pounds, its design."""
    initial: dict[str, Any] = {name: getattr(study, name) for name in STUDY_FIELDS}
    initial["reward"] = Decimal(study.reward_pence).scaleb(-2)
    for option in study.definition.design_options:
        if option.key in study.design:
            value = study.design[option.key]
            initial[DESIGN_PREFIX + option.key] = str(value) if option.kind == "choice" else value
    return initial


class StudyForm(forms.Form):
    """A study of one benchmark: the paper's design by default, the benchmark's texts prefilled;
    editing a draft (`study`), the draft's own values. Creating and editing validate alike."""

    name = forms.CharField(max_length=200)
    group = forms.CharField(
        max_length=100,
        required=False,
        help_text="studies sharing a group refuse a participant who already took one of them",
    )
    pid_format = forms.ChoiceField(
        choices=Study.PidFormat.choices, initial=Study.PidFormat.PROLIFIC, label="Participant IDs"
    )
    language = forms.ChoiceField(
        choices=settings.LANGUAGES,
        initial="en",
        label="Participants' language",
        help_text="the language of the participant pages (buttons, progress, messages); write the consent "
        "and instructions below in it too: they are shown as written",
    )
    consent_text = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 8}),
        help_text="Markdown: **bold**, *italic*, lists, links; HTML is shown as text",
    )
    instructions_text = forms.CharField(widget=forms.Textarea(attrs={"rows": 8}), help_text="Markdown, as above")
    completion_code = forms.CharField(max_length=40)
    failed_attention_code = forms.CharField(
        max_length=40,
        label="Failed-check code",
        help_text="given instead of the completion code to participants excluded for failed attention checks",
    )
    no_consent_code = forms.CharField(max_length=40, required=False, help_text="given to those who decline consent")
    estimated_minutes = forms.IntegerField(min_value=1, max_value=600, initial=30)
    min_answer_ms = forms.IntegerField(
        min_value=0,
        max_value=60_000,
        label="Minimum time per answer (ms)",
        help_text="an answer sooner than this after its item appeared is refused as unread and the item shown "
        "again: a second key press or tap never answers the next item unseen (0: no minimum)",
    )
    closing_questions = forms.MultipleChoiceField(
        choices=[(question.key, question.label) for question in closing.QUESTIONS.values()],
        widget=forms.CheckboxSelectMultiple,
        required=False,
        initial=list(closing.DEFAULT_QUESTIONS),
        help_text="asked after the last item, below the completion code; every one optional for participants",
    )
    reward = forms.DecimalField(
        min_value=Decimal("0.01"), max_digits=6, decimal_places=2, initial=Decimal("4.50"), label="Reward (£)"
    )

    def __init__(self, *args: Any, benchmark: str, study: Study | None = None, **kwargs: Any) -> None:
        if study is not None:
            kwargs["initial"] = {**study_initial(study), **kwargs.get("initial", {})}
        super().__init__(*args, **kwargs)
        self.benchmark = benchmark
        self.study = study
        self.definition = benchmarks.get(benchmark)
        defaults = self.definition.design()
        for option in self.definition.design_options:
            self.fields[DESIGN_PREFIX + option.key] = option_field(option, defaults[option.key])
        self.fields["consent_text"].initial = self.definition.default_consent
        self.fields["instructions_text"].initial = self.definition.default_instructions
        self.fields["completion_code"].initial = Study._meta.get_field("completion_code").get_default()
        self.fields["failed_attention_code"].initial = Study._meta.get_field("failed_attention_code").get_default()
        self.fields["min_answer_ms"].initial = Study._meta.get_field("min_answer_ms").get_default()

    def design_fields(self) -> list[forms.BoundField]:
        return [self[name] for name in self.fields if name.startswith(DESIGN_PREFIX)]

    def study_fields(self) -> list[forms.BoundField]:
        return [self[name] for name in ("name", "group", "pid_format", "language")]

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
        return [self[name] for name in ("min_answer_ms", "closing_questions")]

    def prolific_fields(self) -> list[forms.BoundField]:
        return [
            self[name]
            for name in ("completion_code", "failed_attention_code", "no_consent_code", "estimated_minutes", "reward")
        ]

    def clean_name(self) -> str:
        name = self.cleaned_data["name"].strip()
        others = Study.objects.exclude(pk=self.study.pk) if self.study is not None else Study.objects.all()
        if others.filter(name=name).exists():
            raise forms.ValidationError(f"A study named “{name}” already exists; choose another name.")
        return name

    def design(self) -> dict[str, Any]:
        return {
            option.key: self.cleaned_data[DESIGN_PREFIX + option.key]
            for option in self.definition.design_options
            if DESIGN_PREFIX + option.key in self.cleaned_data
        }

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean()
        design = self.definition.design(self.design())
        for key, message in self.definition.design_errors(design).items():
            field = DESIGN_PREFIX + key
            self.add_error(field if field in self.fields else None, message)
        minutes, reward = cleaned.get("estimated_minutes"), cleaned.get("reward")
        if design.get("exclude_at") == 1 and minutes and minutes >= 5:
            self.add_error(
                DESIGN_PREFIX + "exclude_at" if DESIGN_PREFIX + "exclude_at" in self.fields else None,
                "Prolific allows rejecting for a single failed check only in studies under 5 minutes; "
                "exclude at 2 or more failed checks.",
            )
        if minutes and reward is not None:
            pay = hourly_pay(int(reward * 100), minutes)
            if pay.below_minimum:
                self.add_error(
                    "reward",
                    f"£{reward} for {minutes} minutes is {pay}, below Prolific's minimum of "
                    f"£{PROLIFIC_MINIMUM_PENCE_PER_HOUR / 100:.0f}/h.",
                )
        codes = [cleaned.get(name) for name in ("completion_code", "failed_attention_code", "no_consent_code")]
        given = [code for code in codes if code]
        if len(set(given)) != len(given):
            self.add_error(None, "The completion, failed-check and no-consent codes must differ from each other.")
        return cleaned

    def chosen_design(self) -> dict[str, Any] | None:
        """The design the form holds: as typed when bound, else the draft's or the prefilled one;
        None while a design field is wrong (no estimate can be made of it)."""
        base = dict(self.study.design) if self.study is not None else {}
        if not self.is_bound:
            prefilled = {
                name.removeprefix(DESIGN_PREFIX): value
                for name, value in self.initial.items()
                if name.startswith(DESIGN_PREFIX) and self.study is None
            }
            return self.definition.design({**base, **prefilled})
        if any(name in self.errors for name in self.fields if name.startswith(DESIGN_PREFIX)):
            return None
        return self.definition.design({**base, **self.design()})

    def error_summary(self) -> list[tuple[str, str, str]]:
        """Every error of the form as (label, the field's element id or "", message), in the page's
        order with the errors of no one field first: listed at the top, each linked to its field."""
        rows = [("", "", str(message)) for message in self.non_field_errors()]
        shown = [
            *self.study_fields(),
            *self.design_fields(),
            *self.text_fields(),
            *self.participant_fields(),
            *self.prolific_fields(),
        ]
        for field in shown:
            rows += [(str(field.label), f"field-{field.name}", str(message)) for message in field.errors]
        return rows

    def study_arguments(self) -> dict[str, Any]:
        """The study's fields and design, as `study_create` and `study_draft_update` take them."""
        data = self.cleaned_data
        return {
            **{name: data[name] for name in STUDY_FIELDS},
            "design": self.design(),
            "reward_pence": int(data["reward"] * 100),
        }

    def create_arguments(self) -> dict[str, Any]:
        """`study_create`'s keyword arguments (the same service as `manage.py create_study`)."""
        return {**self.study_arguments(), "benchmark": self.benchmark, "status": Study.Status.DRAFT}


class StatusForm(forms.Form):
    status = forms.ChoiceField(choices=Study.Status.choices)


class PreregistrationForm(forms.Form):
    """The researcher's part of the preregistration, written while the study is a draft."""

    hypotheses = forms.CharField(
        required=False,
        max_length=20_000,
        widget=forms.Textarea(attrs={"rows": 5}),
        help_text="What you expect the study to show, and how you will decide (e.g. humans beat the model by "
        "at least 5 points on the same items).",
    )
    notes = forms.CharField(
        required=False,
        max_length=20_000,
        widget=forms.Textarea(attrs={"rows": 3}),
        help_text="Anything else planned: further analyses, comparisons, known limits.",
    )


class PreregistrationFormatForm(forms.Form):
    fmt = forms.ChoiceField(choices=[("md", "Markdown"), ("html", "HTML")])
