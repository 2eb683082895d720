"""Studies in other languages, as a researcher writes them: their own items, consent and
instructions in the participants' language, and the study's `language` set to it."""

from __future__ import annotations

from annotation.services import benchmark_records_import
from studies.models import Study
from studies.setup.studies import study_create

#: per language: the item set (one of each kind with buttons, a number, the attention check), the
#: consent and instructions texts, and the answer each item is given (a label a person presses/types)
STUDIES = {
    "de": {
        "items": [
            {
                "id": "hauptstadt",
                "kind": "choice",
                "text": "Welche Stadt ist die Hauptstadt von Australien?",
                "options": "Sydney|Canberra|Melbourne",
                "gold": "Canberra",
            },
            {
                "id": "wasser",
                "kind": "yes_no",
                "text": "Siedet reines Wasser auf Meereshöhe bei 100 °C?",
                "gold": "yes",
            },
            {"id": "beine", "kind": "number", "text": "Wie viele Beine hat eine Spinne?", "gold": "8"},
            {
                "id": "pruefung",
                "kind": "choice",
                "text": "Bitte wählen Sie Blau, um zu zeigen, dass Sie aufmerksam lesen.",
                "options": "Rot|Blau|Grün",
                "gold": "Blau",
                "attention_check": "true",
            },
        ],
        "consent": "Sie nehmen **freiwillig** an dieser Studie teil.",
        "instructions": "Bitte beantworten Sie jede Frage so gut Sie können.",
    },
    "ar": {
        "items": [
            {
                "id": "asima",
                "kind": "choice",
                "text": "ما عاصمة أستراليا؟",
                "options": "سيدني|كانبرا|ملبورن",
                "gold": "كانبرا",
            },
            {
                "id": "maa",
                "kind": "yes_no",
                "text": "هل يغلي الماء النقي عند 100 درجة مئوية على مستوى سطح البحر؟",
                "gold": "yes",
            },
            {"id": "arjul", "kind": "number", "text": "كم رجلًا للعنكبوت؟", "gold": "8"},
            {
                "id": "tahaqquq",
                "kind": "choice",
                "text": "لإظهار أنكم تقرؤون بعناية، يُرجى اختيار الأزرق.",
                "options": "الأحمر|الأزرق|الأخضر",
                "gold": "الأزرق",
                "attention_check": "true",
            },
        ],
        "consent": "مشاركتكم في هذه الدراسة **طوعية**.",
        "instructions": "يُرجى الإجابة عن كل سؤال بأفضل ما تستطيعون.",
    },
}


def language_study(language: str, items: str = "", **fields) -> Study:
    """A live study of the researcher's own items in `language` (see `STUDIES`; `items`: another
    language's items, for a language without its own here), one participant."""
    spec = STUDIES[items or language]
    benchmark_records_import(name="custom", records=spec["items"], options={"name": f"items-{language}"})
    return study_create(
        name=f"a study in {language}",
        benchmark="custom",
        design={
            "item_set": f"items-{language}",
            "unit_size": 0,
            "per_unit": 1,
            "attention_checks": 1,
            "exclude_at": 0,
            "shuffle_items": False,
        },
        language=language,
        # the pages' plural forms are checked at 30 minutes
        estimated_minutes=30,
        reward_pence=450,
        closing_questions=["gender", "ai_tool", "feedback"],
        consent_text=spec["consent"],
        instructions_text=spec["instructions"],
        **fields,
    )
