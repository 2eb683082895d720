"""The answer POST's form: forms checked one after another keep their own data, values and errors."""

from __future__ import annotations

from participation.forms import AnswerForm


def test_each_form_keeps_its_own_values_and_errors():
    good = AnswerForm(
        {"item": "3f2a9c0d1e4b5a6c7d8e", "position": "2", "answer": " yes ", "pasted": "on", "option_order": "ba"}
    )
    bad = AnswerForm({"item": "", "position": "x", "answer": "y" * 4001})
    assert good.is_valid() and not bad.is_valid()
    assert good.cleaned_data == {
        "item": "3f2a9c0d1e4b5a6c7d8e",
        "position": 2,
        "answer": " yes ",
        "pasted": True,
        "option_order": "ba",
        "explanation": "",
        "homepage": "",
    }
    assert set(bad.errors) == {"item", "position", "answer"}
    assert AnswerForm({"item": "3", "position": "1"}).is_valid()
    assert not good.errors and good.cleaned_data["item"] == "3f2a9c0d1e4b5a6c7d8e"
