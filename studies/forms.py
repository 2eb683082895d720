from __future__ import annotations

from django import forms
from django.core.validators import RegexValidator

# Prolific IDs are 24 hex characters in practice; accept any opaque token of safe characters.
_token = RegexValidator(r"^[A-Za-z0-9_-]{1,64}$", "must be 1–64 letters, digits, '-' or '_'")


class EntryForm(forms.Form):
    """The query string Prolific appends to the study link."""

    PROLIFIC_PID = forms.CharField(max_length=64, validators=[_token],
                                   error_messages={"required": "is missing from the link"})
    STUDY_ID = forms.CharField(max_length=64, required=False, validators=[_token])
    SESSION_ID = forms.CharField(max_length=64, required=False, validators=[_token])


class ConsentForm(forms.Form):
    agree = forms.TypedChoiceField(choices=[("yes", "I agree"), ("no", "I do not agree")],
                                   coerce=lambda value: value == "yes")


class AnswerForm(forms.Form):
    item = forms.IntegerField(min_value=1)
    position = forms.IntegerField(min_value=1)
    answer = forms.CharField(max_length=4000, strip=False, required=False)
    pasted = forms.BooleanField(required=False)
    option_order = forms.CharField(max_length=40, required=False)
