"""The language each text of a study is written in, beside the language of its pages.

A study's pages are in its language (`Study.language`), but not every text on them is: the
benchmarks' default consent and instructions, their question line and the built-in datasets' items
are English, and stay so. Each such text carries its own `lang` and `dir` on the page, so that a
screen reader reads it in its language and its punctuation lands on the right side inside a
right-to-left page; the study form and the study page name these texts before launch, so that the
researcher can give the study's own (consent, instructions, the question line) in the participants'
language. A text the researcher wrote is taken to be in the study's language; a default left as it
is, in the benchmark's."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from django.utils.translation import get_language_info

from parity.benchmarks.base import Benchmark
from studies.models import Study

#: the texts of a study whose language may differ from its pages', in the pages' order
TEXTS = ("consent", "instructions", "items", "question")
#: how the researcher's pages name each of them
TEXT_NAMES = {
    "consent": "the consent",
    "instructions": "the instructions",
    "items": "the items",
    "question": "the question line under each item",
}


@dataclass(frozen=True)
class ForeignText:
    """A text participants read in another language than the study's."""

    key: str
    language: str
    #: what the researcher can do about it, in words
    remedy: str

    @property
    def name(self) -> str:
        return TEXT_NAMES[self.key]

    @property
    def language_name(self) -> str:
        return str(get_language_info(self.language)["name"])


def direction(language: str) -> str:
    """ "rtl" for a right-to-left language (Arabic), else "ltr"."""
    return "rtl" if get_language_info(language)["bidi"] else "ltr"


def _own(text: str, default: str) -> bool:
    return bool(text.strip()) and text.strip() != default.strip()


def text_languages(
    definition: Benchmark, *, language: str, consent_text: str, instructions_text: str, design: Mapping[str, Any]
) -> dict[str, str]:
    """The language of each of a study's texts (see `TEXTS`); a benchmark without a question line
    has none."""
    source = definition.texts_language
    languages = {
        "consent": language if _own(consent_text, definition.default_consent) else source,
        "instructions": language if _own(instructions_text, definition.default_instructions) else source,
        "items": language if definition.items_in_study_language else source,
    }
    if definition.question_line:
        languages["question"] = language if str(design.get("question") or "").strip() else source
    return languages


def foreign_texts(
    definition: Benchmark, *, language: str, consent_text: str, instructions_text: str, design: Mapping[str, Any]
) -> list[ForeignText]:
    """The texts participants would read in another language than `language`, with what to do."""
    remedies = {
        "consent": "write the consent in the participants' language",
        "instructions": "write the instructions in the participants' language",
        "question": "give the question line in the participants' language (design option \u201cQuestion line\u201d)",
        "items": "the benchmark's items are its dataset's, shown as published; say so in the instructions",
    }
    languages = text_languages(
        definition, language=language, consent_text=consent_text, instructions_text=instructions_text, design=design
    )
    return [
        ForeignText(key, languages[key], remedies[key])
        for key in TEXTS
        if key in languages and languages[key] != language
    ]


def study_foreign_texts(study: Study) -> list[ForeignText]:
    """`foreign_texts` of a saved study."""
    return foreign_texts(
        study.definition,
        language=study.language,
        consent_text=study.consent_text,
        instructions_text=study.instructions_text,
        design=study.design,
    )


def study_text_language(study: Study, text: str) -> str:
    """The language `text` (one of `TEXTS`) of `study` is written in. Reads only the field that
    text needs: an item page's study comes without its consent and instructions."""
    definition = study.definition
    source = definition.texts_language
    if text == "consent":
        return study.language if _own(study.consent_text, definition.default_consent) else source
    if text == "instructions":
        return study.language if _own(study.instructions_text, definition.default_instructions) else source
    if text == "items":
        return study.language if definition.items_in_study_language else source
    if text == "question":
        return study.language if str(study.design.get("question") or "").strip() else source
    raise ValueError(f"unknown text {text!r}; known: {', '.join(TEXTS)}")
