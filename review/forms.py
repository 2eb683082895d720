"""The review pages' input: the exclusion decision, the queue's choices and a verifier's mark."""

from __future__ import annotations

from typing import Any

from django import forms

from review.selectors import STATES
from studies.models import VerificationMark

#: the admin's name for the list's filters carried to a page and back (`preserved_filters`)
FILTERS = "_changelist_filters"


class ListFiltersForm(forms.Form):
    """The participant list's filters, carried through the review pages as the admin carries them."""

    _changelist_filters = forms.CharField(max_length=2000, required=False)

    def filters(self) -> str:
        return self.cleaned_data.get(FILTERS, "") if self.is_valid() else ""


class DecisionForm(ListFiltersForm):
    decision = forms.ChoiceField(choices=[("exclude", "Exclude"), ("include", "Include again")])
    reason = forms.CharField(
        max_length=200, required=False, help_text="kept with the participant; exports and the API show it"
    )

    def clean(self) -> dict[str, Any]:
        super().clean()
        cleaned = self.cleaned_data
        if cleaned.get("decision") == "exclude" and not (cleaned.get("reason") or "").strip():
            self.add_error("reason", "Say why: the reason is kept with the participant.")
        return cleaned


class QueueForm(forms.Form):
    """Which answers the queue goes through, as whom, and which one is shown."""

    role = forms.ChoiceField(choices=VerificationMark.Role.choices, required=False)
    state = forms.ChoiceField(choices=list(STATES.items()), required=False)
    at = forms.IntegerField(min_value=1, required=False)

    def choice(self) -> tuple[str, str, int | None]:
        if not self.is_valid():
            return VerificationMark.Role.FIRST, "unverified", None
        data = self.cleaned_data
        return data["role"] or VerificationMark.Role.FIRST, data["state"] or "unverified", data["at"]


class MarkForm(forms.Form):
    verdict = forms.ChoiceField(choices=[("right", "Right"), ("wrong", "Wrong"), ("skip", "Skip"), ("clear", "Clear")])
    role = forms.ChoiceField(choices=VerificationMark.Role.choices)
    state = forms.ChoiceField(choices=list(STATES.items()))

    CORRECT = {"right": True, "wrong": False, "clear": None}
