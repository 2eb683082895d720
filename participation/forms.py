from __future__ import annotations

import re
from typing import TYPE_CHECKING, NamedTuple, TypedDict

from django import forms
from django.conf import settings
from django.core.validators import RegexValidator
from django.http import QueryDict
from django.utils.translation import gettext_lazy

from parity import panels
from parity.stats.quality import behaviour
from parity.training import TrainingQuestion
from studies.design.closing_questions import ClosingQuestion
from studies.models import Study

if TYPE_CHECKING:
    from django_stubs_ext import StrOrPromise

_token = RegexValidator(r"^[A-Za-z0-9_-]{1,64}$", gettext_lazy("must be 1–64 letters, digits, '-' or '_'"))
_PROLIFIC_ID = re.compile(r"[0-9a-fA-F]{24}")


#: the page says "Please open the study from Prolific again (<field> <message>)": no brackets inside
_LONG = {"max_length": gettext_lazy("is longer than %(limit_value)d characters")}


class EntryForm(forms.Form):
    """The query string Prolific appends to the study link, and the start page's form that posts it
    back (with the signed-link token, when Prolific signs the link)."""

    PROLIFIC_PID = forms.CharField(
        max_length=64, error_messages={"required": gettext_lazy("is missing from the link"), **_LONG}
    )
    # `_token` allows 1-64 characters: a max_length would say the same again
    STUDY_ID = forms.CharField(required=False, validators=[_token])
    SESSION_ID = forms.CharField(required=False, validators=[_token])

    def __init__(self, *args, study: Study, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.study = study
        self.fields[settings.PROLIFIC_JWT_PARAM] = forms.CharField(
            max_length=8192, required=False, error_messages=_LONG
        )

    def clean_PROLIFIC_PID(self) -> str:
        pid = self.cleaned_data["PROLIFIC_PID"]
        if self.study.pid_format == Study.PidFormat.PROLIFIC:
            if not _PROLIFIC_ID.fullmatch(pid):
                raise forms.ValidationError(gettext_lazy("must be a Prolific ID: 24 hexadecimal characters"))
            return pid.lower()
        _token(pid)
        return pid

    @property
    def signed_token(self) -> str:
        return self.cleaned_data.get(settings.PROLIFIC_JWT_PARAM, "")

    def ids(self) -> PanelIds:
        return PanelIds(
            self.cleaned_data["PROLIFIC_PID"], self.cleaned_data["STUDY_ID"], self.cleaned_data["SESSION_ID"]
        )

    def hidden_values(self) -> list[tuple[str, str]]:
        """What the start page posts back: the link's parameters as checked."""
        names = ("PROLIFIC_PID", "STUDY_ID", "SESSION_ID", settings.PROLIFIC_JWT_PARAM)
        return [(name, self.cleaned_data[name]) for name in names if self.cleaned_data.get(name)]


class PanelIds(NamedTuple):
    """The participant's id, the panel's study (project, HIT) and the assignment or session, as the
    link gave them (stored as `Participant.prolific_pid`, `prolific_study_id`, `prolific_session_id`)."""

    pid: str
    study_id: str
    session_id: str


_SHAPE_MESSAGE = {
    panels.CONNECT: gettext_lazy("must be a Connect ID: letters and digits"),
    panels.MTURK: gettext_lazy("must be an MTurk ID: upper-case letters and digits"),
    panels.SONA: gettext_lazy("must be a SONA survey code: a number of 2 to 7 digits"),
    panels.LAB: gettext_lazy("must be 1–64 letters, digits, '-' or '_'"),
}


class PanelEntryForm(forms.Form):
    """The study link's parameters for a panel other than Prolific (`parity.panels`): its own names
    and id shapes. MTurk's `turkSubmitTo` must name the host the study's setting expects."""

    def __init__(self, *args, study: Study, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.study = study
        self.panel = panels.get(study.panel)
        self.fields[self.panel.id_param] = forms.CharField(
            max_length=64,
            required=not self.panel.id_optional,
            error_messages={"required": gettext_lazy("is missing from the link"), **_LONG},
        )
        for name in (self.panel.study_param, self.panel.session_param):
            if name:
                self.fields[name] = forms.CharField(max_length=64, required=False, error_messages=_LONG)
        if study.panel == panels.MTURK:
            self.fields["turkSubmitTo"] = forms.CharField(max_length=200, required=False, error_messages=_LONG)

    def clean(self) -> dict:
        cleaned = super().clean() or {}
        pid = cleaned.get(self.panel.id_param)
        if pid and not self.panel.id_shape.fullmatch(pid):
            self.add_error(self.panel.id_param, _SHAPE_MESSAGE[self.panel.key])
        for name in (self.panel.study_param, self.panel.session_param):
            value = cleaned.get(name)
            if name and value and not self.panel.other_shape.fullmatch(value):
                self.add_error(name, gettext_lazy("must be 1–64 letters, digits, '-' or '_'"))
        submit_to = cleaned.get("turkSubmitTo")
        sandbox = panels.PanelSettings.of(self.study.panel_settings).sandbox
        if submit_to and not panels.mturk_host_matches(submit_to, sandbox):
            self.add_error("turkSubmitTo", gettext_lazy("is not the MTurk this study was published on"))
        return cleaned

    @property
    def signed_token(self) -> str:
        return ""

    def ids(self) -> PanelIds:
        data = self.cleaned_data
        return PanelIds(
            data.get(self.panel.id_param) or "",
            data.get(self.panel.study_param) or "" if self.panel.study_param else "",
            data.get(self.panel.session_param) or "" if self.panel.session_param else "",
        )

    def hidden_values(self) -> list[tuple[str, str]]:
        return [(name, self.cleaned_data[name]) for name in self.fields if self.cleaned_data.get(name)]


def entry_form(data, *, study: Study) -> EntryForm | PanelEntryForm:
    """The study link's form for the study's panel."""
    if study.panel == panels.PROLIFIC:
        return EntryForm(data, study=study)
    return PanelEntryForm(data, study=study)


class ConsentForm(forms.Form):
    agree = forms.TypedChoiceField(
        choices=[("yes", gettext_lazy("I agree to take part")), ("no", gettext_lazy("I do not agree"))],
        coerce=lambda value: value == "yes",
    )


class AnswerForm(forms.Form):
    #: which item this answers, as an opaque token (`studies.participants.answer_tokens`), never the item's key
    item = forms.CharField(max_length=64)
    position = forms.IntegerField(min_value=1)
    answer = forms.CharField(max_length=4000, strip=False, required=False)
    pasted = forms.BooleanField(required=False)
    option_order = forms.CharField(max_length=40, required=False)
    #: why the participant chose the answer, where the study asks; no length limit here: the service
    #: refuses one over `explanations.MAX_CHARS` and the page gives the text back to be shortened
    explanation = forms.CharField(required=False, strip=False)
    #: the honeypot: a box no person sees or reaches; whatever fills it, the answer is stored (no
    #: length limit that could refuse it) and only the fact that it was filled is kept
    homepage = forms.CharField(required=False, strip=False)


class BehaviourForm(forms.Form):
    """The counts and durations the page's script sends with an answer (`parity.stats.quality.behaviour`),
    as `behaviour-<figure>` fields. They never refuse the answer: `record()` says what is stored."""

    def __init__(self, data: QueryDict) -> None:
        super().__init__(data, prefix="behaviour")
        for name, most in behaviour.FIGURES.items():
            self.fields[name] = forms.IntegerField(min_value=0, max_value=most, required=name not in behaviour.OPTIONAL)

    def record(self) -> dict:
        """The figures when they are whole and within bounds; {"status": "none"} when the page sent
        none (no script ran); {"status": "invalid"} otherwise."""
        if not any(self.data.get(self.add_prefix(name)) for name in self.fields):
            return {"status": behaviour.NONE}
        if not self.is_valid():
            return {"status": behaviour.INVALID}
        return dict(self.cleaned_data)


class PreviewAnswerForm(forms.Form):
    item = forms.CharField(max_length=64)
    position = forms.IntegerField(min_value=1)
    answer = forms.CharField(max_length=4000, strip=False, required=False)
    explanation = forms.CharField(required=False, strip=False)


class _Common(TypedDict):
    label: StrOrPromise
    help_text: StrOrPromise
    required: bool


def _closing_field(question: ClosingQuestion) -> forms.Field:
    common = _Common(label=question.label, help_text=question.help, required=False)
    if question.kind == "choice":
        return forms.ChoiceField(choices=question.choices, widget=forms.RadioSelect, **common)
    if question.kind == "number":
        return forms.IntegerField(min_value=question.low, max_value=question.high, **common)
    if question.kind == "long_text":
        return forms.CharField(max_length=2000, widget=forms.Textarea(attrs={"rows": 4}), **common)
    return forms.CharField(max_length=100, **common)


class ClosingForm(forms.Form):
    """The study's closing questions, every one optional."""

    def __init__(self, *args, questions: list[ClosingQuestion], **kwargs) -> None:
        super().__init__(*args, **kwargs)
        for question in questions:
            self.fields[question.key] = _closing_field(question)


class PracticeForm(forms.Form):
    """An answer to the current practice question: a choice or a few words."""

    answer = forms.CharField(max_length=500, strip=True)


class ComprehensionForm(forms.Form):
    """One try at the comprehension check: a field per question, in order (`q0`, `q1`, ...), a choice
    where the question has choices, else a line of text."""

    #: the tries made before this one: a second send of the same try (a double click) is not a try
    attempt = forms.IntegerField(min_value=0, widget=forms.HiddenInput)

    def __init__(self, *args, questions: list[TrainingQuestion], **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.questions = questions
        for number, question in enumerate(questions):
            name = f"q{number}"
            if question.choices:
                self.fields[name] = forms.ChoiceField(
                    label=question.text,
                    choices=[(choice, choice) for choice in question.choices],
                    widget=forms.RadioSelect,
                )
            else:
                self.fields[name] = forms.CharField(label=question.text, max_length=500)

    def answers(self) -> list[str]:
        return [self.cleaned_data[f"q{number}"] for number in range(len(self.questions))]
