"""Rating MiQA's generative answers (Comsa et al., Section 5.2).

A model answered "M_p. Could that imply that L_c?"; people rate each answer correct, ambiguous or
wrong (1 / 0.5 / 0), several raters per answer, and the agreement is reported as ICC(2,k). An item
is one (question, model, answer); its gold is empty, because the rating *is* the measurement.
Answers come from a JSONL file (`question_id`, `model`, `answer`; see `miqa.parse_generative_answers`)
or, in memory, from a model run (`load_records`). The question texts are built from the imported
MiQA "implies" questions, so MiQA is imported first.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, ClassVar

from ...messages import Message, gettext_noop
from ..base import Benchmark, Choice, DatasetError, ImportBundle, ItemData, ResultsInput, Scored
from ..design import DesignOption
from ..miqa import RATING_SCALE, generative_prompt, generative_question_id, parse_generative_answers
from ..sections import Sections
from ..timing import AnswerTime
from . import results as results_side
from .prompts import CONSENT, INSTRUCTIONS

SPLIT = "generative"
_KEY_LENGTH = 120  # Item.key's max_length
_FIELDS = ("question_id", "model", "answer")
# the buttons' labels, shown in the study's language (`Message`s are translated on the page)
_LABELS = {
    "correct": Message(gettext_noop("Correct")),
    "ambiguous": Message(gettext_noop("Ambiguous")),
    "wrong": Message(gettext_noop("Wrong")),
}


def generative_questions(miqa_items: Sequence[ItemData]) -> dict[str, str]:
    """question_id -> the generative question, one per MiQA row (from its "implies" question)."""
    return {
        generative_question_id(int(item.meta["row"])): generative_prompt(item.prompt)
        for item in miqa_items
        if not item.is_attention_check and item.prompt.get("direction") == "implies"
    }


def rating_key(question_id: str, model: str) -> str:
    key = f"{question_id}/{model}"
    if len(key) <= _KEY_LENGTH:
        return key
    return f"{question_id}/{hashlib.sha256(model.encode()).hexdigest()[:24]}"


def rating_item(question_id: str, model: str, answer: str, question: str) -> ItemData:
    """The model stays out of the prompt: raters judge the answer, not who gave it."""
    return ItemData(
        key=rating_key(question_id, model),
        split=SPLIT,
        prompt={"question_id": question_id, "question": question, "answer": answer},
        gold="",
        meta={"question_id": question_id, "model": model, "row": int(question_id.split("-")[1])},
    )


def _checked_records(
    records: Sequence[Mapping[str, Any]], known: Mapping[str, str], label: str
) -> list[tuple[str, str, str]]:
    checked: list[tuple[str, str, str]] = []
    seen: set[tuple[str, str]] = set()
    for number, record in enumerate(records, start=1):
        if not isinstance(record, Mapping):
            raise DatasetError(label, "expected an object with question_id, model, answer", row=number)
        missing = [name for name in _FIELDS if name not in record]
        if missing:
            raise DatasetError(label, f"missing field(s) {', '.join(missing)}", row=number)
        wrong = [name for name in _FIELDS if not isinstance(record[name], str)]
        if wrong:
            raise DatasetError(label, f"field(s) {', '.join(wrong)} must be strings", row=number)
        question_id, model = record["question_id"].strip(), record["model"].strip()
        if not model:
            raise DatasetError(label, "model must not be empty", row=number)
        if question_id not in known:
            raise DatasetError(label, f"unknown question_id {question_id!r}", row=number)
        if (question_id, model) in seen:
            raise DatasetError(label, f"a second answer of {model!r} to {question_id!r}", row=number)
        seen.add((question_id, model))
        checked.append((question_id, model, record["answer"]))
    return checked


class MiQARating(Benchmark):
    name = "miqa_rating"
    title = "MiQA generative answers, rated (Comsa et al.)"
    item_template = "participation/partials/_item_rating.html"
    source_is_file = True
    builds_on = ("miqa",)
    default_design: ClassVar[Mapping[str, Any]] = {
        "split": SPLIT,
        "unit_size": 50,
        "per_unit": 3,  # raters per answer
        "models": "",  # comma-separated model names to rate; blank: every imported answer
        "attention_checks": 0,
        "exclude_at": 0,
        "shuffle_items": True,
    }
    design_options = (
        DesignOption("unit_size", "Answers per rater", help="a block of answers graded by the same raters", minimum=1),
        DesignOption("per_unit", "Raters per answer", minimum=1),
        DesignOption("models", "Models to rate", kind="text", help="comma-separated; blank: every imported answer"),
        DesignOption("shuffle_items", "Shuffle answers per rater", kind="bool"),
    )
    default_consent = CONSENT
    default_instructions = INSTRUCTIONS
    #: a rating is a grade on MiQA's scale, not a right or wrong answer
    answer_scale = results_side.ANSWER_SCALE

    # -- data in -------------------------------------------------------------------------
    def load(self, source: Path, options: Mapping[str, Any] | None = None) -> ImportBundle:
        """`source` is the JSONL file of answers; options["items"]["miqa"] the imported MiQA questions."""
        known = self._questions(options)
        path = Path(source)
        if not path.is_file():
            raise DatasetError(path.name or str(path), "a JSONL file of answers is needed (--source FILE.jsonl)")
        answers = parse_generative_answers(path, known_ids=known)
        return ImportBundle(
            items=[rating_item(a.question_id, a.model, a.answer, known[a.question_id]) for a in answers]
        )

    def load_records(
        self, records: Sequence[Mapping[str, Any]], options: Mapping[str, Any] | None = None
    ) -> ImportBundle:
        known = self._questions(options)
        checked = _checked_records(records, known, "answers")
        return ImportBundle(items=[rating_item(qid, model, answer, known[qid]) for qid, model, answer in checked])

    @staticmethod
    def _questions(options: Mapping[str, Any] | None) -> dict[str, str]:
        questions = generative_questions(((options or {}).get("items") or {}).get("miqa") or [])
        if not questions:
            raise DatasetError("miqa", "no MiQA questions are imported: run `import_benchmark miqa` first")
        return questions

    # -- the human side ------------------------------------------------------------------
    def choices(self, item_prompt: Mapping[str, Any], design: Mapping[str, Any]) -> list[Choice]:
        return [
            Choice(value, _LABELS[value], (str(position), value[0]))
            for position, value in enumerate(RATING_SCALE, start=1)
        ]

    def present(self, item_prompt: Mapping[str, Any], design: Mapping[str, Any]) -> dict[str, Any]:
        return {"question": item_prompt["question"], "answer": item_prompt["answer"]}

    def parse_answer(self, raw: str) -> str | None:
        value = raw.strip().lower()
        return value if value in RATING_SCALE else None

    def score(
        self, raw: str, gold: str, design: Mapping[str, Any] | None = None, *, item: ItemData | None = None
    ) -> Scored:
        """A rating is valid or not; it is never right or wrong (its value is `RATING_SCALE[answer]`)."""
        answer = self.parse_answer(raw)
        return Scored(answer=answer, correct=False, valid=answer is not None)

    def item_category(self, item: ItemData) -> str:
        return self.graded_subject(item.meta)

    def graded_subject(self, meta: Mapping[str, Any]) -> str:
        return str(meta.get("model", ""))

    # -- design --------------------------------------------------------------------------
    #: no published figure: a question and a model's written answer of a few sentences (~80 words,
    #: ~20 s at 240 words a minute), then a grade on MiQA's scale
    answer_time = AnswerTime(
        30, "no published figure: a question and a model's answer (~80 words) read in ~20 s, then a grade"
    )

    def answers_per_participant(self, design: Mapping[str, Any]) -> int | None:
        # the last block may be shorter: a full one is what a rater may be given
        return int(design["unit_size"]) + int(design.get("attention_checks", 0))

    def build_units(self, items: Sequence[ItemData], design: Mapping[str, Any]) -> list[list[str]]:
        """Blocks of `unit_size` answers in key order (the last may be shorter); each block is
        rated by `per_unit` raters, each in their own random order (`shuffle_items`)."""
        models = {name.strip() for name in str(design.get("models") or "").split(",") if name.strip()}
        pool = sorted(
            (
                item
                for item in items
                if item.split == design["split"]
                and not item.is_attention_check
                and (not models or item.meta.get("model") in models)
            ),
            key=lambda item: item.key,
        )
        if not pool:
            wanted = f" of {', '.join(sorted(models))}" if models else ""
            raise ValueError(f"no answers{wanted} are imported to rate")
        size = int(design["unit_size"])
        if size < 1:
            raise ValueError(f"unit_size must be at least 1, not {size}")
        return [[item.key for item in pool[start : start + size]] for start in range(0, len(pool), size)]

    # -- results (results.py) --------------------------------------------------------------
    def breakdowns(self, results_input: ResultsInput) -> Sections:
        return results_side.breakdowns(results_input)
