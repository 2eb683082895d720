"""The forms of a draft's preregistration: the researcher's part, and the format it is downloaded in."""

from __future__ import annotations

from django import forms


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
