"""MiQA (Comsa et al., "MiQA: A Benchmark for Inference on Metaphorical Questions").

150 rows (literal premise L_p, metaphorical premise M_p, literal conclusion L_c, metaphorical
conclusion M_c) -> 300 binary questions. "implies": given M_p, pick M_c over L_c. "implied-by":
given L_c, pick L_p over M_p. Options are stored in the order of the paper's Table 1 (the literal
sentence first: a = L_c / L_p); humans see them in a per-participant random order, models see
both orders. Appendix A wordings, k-shot prefixes, the two baseline prompts, NLI pairs and the
generative task (PaLM answers rated correct / ambiguous / wrong) are pure functions here.
"""

from __future__ import annotations

import csv
import io
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Collection, Mapping, Sequence

from . import miqa_model
from .base import (
    Benchmark,
    ChoicePrompt,
    Choice,
    DatasetError,
    ImportBundle,
    ItemData,
    ModelAnswer,
    Screen,
    SourceFile,
    read_text,
    seeded_rng,
)

FILENAME = "metaphor_inference_qa.tsv"
COLUMNS = ("literal_premise", "metaphorical_premise", "literal_conclusion", "metaphorical_conclusion")
ROWS = 150
DIRECTIONS = ("implies", "implied-by")
OPTION_KEYS = ("a", "b")
K_SHOTS = (0, 1, 5)
_SOURCE = SourceFile(
    path=FILENAME,
    url="https://raw.githubusercontent.com/google-research/language/865fae65f63ef7e6b2989d4ff8b47f61750415a8"
        "/language/miqa/metaphor_inference_qa.tsv",
    sha256="0b0a4c2a9691cbd1566dfbf708444f1fde609f947f24dfd6ea2eca21b2784538",
)

# The question as a participant reads it (Table 1 and the dataset README).
HUMAN_QUESTIONS = {
    "implies": '"{statement}". Which of the following statements could that imply?',
    "implied-by": '"{statement}" is implied by which of the following?',
}
# Appendix A, prompts 1-4 for "implies"; "similar prompts were used with implied-by": the same four
# shapes around the README's "is implied by which of the following" wording.
WORDINGS: dict[str, dict[int, str]] = {
    "implies": {
        1: '"{statement}". Which of the following two statements could that imply? {first} or {second}?',
        2: '"{statement}". Which of the following two statements could that imply? (1) {first} (2) {second}',
        3: 'Q: "{statement}". Which of the following two statements could that imply? (1) {first} (2) {second} A:',
        4: 'Question: "{statement}". Which of the following two statements could that imply? (1) {first} '
           '(2) {second} Answer: It could imply',
    },
    "implied-by": {
        1: '"{statement}" is implied by which of the following two statements? {first} or {second}?',
        2: '"{statement}" is implied by which of the following two statements? (1) {first} (2) {second}',
        3: 'Q: "{statement}" is implied by which of the following two statements? (1) {first} (2) {second} A:',
        4: 'Question: "{statement}" is implied by which of the following two statements? (1) {first} '
           '(2) {second} Answer: It could be implied by',
    },
}
# The two baselines (Table 3 calls them "no choices" and "no questions").
BASELINES = {"empty": "", "pick": "Pick between the following statements: (1) {first} (2) {second}"}
SHOT_SEPARATOR = "\n\n"
GENERATIVE_PROMPT = '"{premise}". Could that imply that "{conclusion}"?'
#: the rating of a generative answer, and what it counts towards accuracy
RATING_SCALE: dict[str, float] = {"correct": 1.0, "ambiguous": 0.5, "wrong": 0.0}

CONSENT = (
    "You are invited to take part in a research study on how people draw conclusions from everyday "
    "statements. You will read a statement and choose which of two other statements it relates to. "
    "Taking part is voluntary; you may stop at any time by returning the study on Prolific. "
    "Your answers are stored under a pseudonym and used only for research; your Prolific ID is kept "
    "only to pay you and is never published."
)
INSTRUCTIONS = (
    "Each screen shows a statement and a question with two possible answers. Choose the answer that "
    "makes the most sense in everyday, common-sense terms. There are no trick questions, and you cannot "
    "go back to change an answer. Keyboard: press 1 for the first answer, 2 for the second."
)
ATTENTION_CHECKS: tuple[tuple[str, str, str], ...] = (
    ('This is an attention check. Please choose "I am reading carefully".', "I am reading carefully", "The moon is a cheese"),
    ('To show you are paying attention, choose the statement "Apples are fruit".', "Apples are fruit", "Apples are furniture"),
    ('Attention check: please select "I read the instructions".', "I read the instructions", "Tables can swim"),
)


# -- the data ------------------------------------------------------------------------------


@dataclass(frozen=True)
class MiqaRow:
    row: int
    literal_premise: str
    metaphorical_premise: str
    literal_conclusion: str
    metaphorical_conclusion: str


def read_rows(path: Path, expected: int | None = ROWS) -> list[MiqaRow]:
    """The TSV with its exact header, four non-empty tab-separated fields a row, `expected` rows."""
    label = path.name
    text = read_text(path, label, encoding="utf-8")
    lines = list(csv.reader(io.StringIO(text, newline=""), delimiter="\t", quoting=csv.QUOTE_NONE, strict=True))
    if not lines:
        raise DatasetError(label, "file is empty")
    header = [column.strip() for column in lines[0]]
    if tuple(header) != COLUMNS:
        raise DatasetError(label, f"expected the header {' | '.join(COLUMNS)}, found {' | '.join(header)}", row=1)
    rows = []
    for line_number, values in enumerate(lines[1:], start=2):
        if not any(value.strip() for value in values):
            continue
        if len(values) != len(COLUMNS):
            raise DatasetError(label, f"expected {len(COLUMNS)} tab-separated fields, found {len(values)}"
                                      + (" (truncated?)" if len(values) < len(COLUMNS) else ""), row=line_number)
        empty = [column for column, value in zip(COLUMNS, values) if not value.strip()]
        if empty:
            raise DatasetError(label, f"empty field(s) {', '.join(empty)} (truncated?)", row=line_number)
        rows.append(MiqaRow(len(rows) + 1, *(value.strip() for value in values)))
    if expected is not None and len(rows) != expected:
        raise DatasetError(label, f"expected {expected} rows, found {len(rows)} (truncated?)")
    return rows


def row_items(row: MiqaRow) -> list[ItemData]:
    implies = ItemData(
        key=f"miqa-{row.row:03d}-implies", split="test",
        prompt={"direction": "implies", "statement": row.metaphorical_premise,
                "question": HUMAN_QUESTIONS["implies"].format(statement=row.metaphorical_premise),
                "options": {"a": row.literal_conclusion, "b": row.metaphorical_conclusion}},
        gold="b", meta={"row": row.row, "direction": "implies"},
    )
    implied_by = ItemData(
        key=f"miqa-{row.row:03d}-implied-by", split="test",
        prompt={"direction": "implied-by", "statement": row.literal_conclusion,
                "question": HUMAN_QUESTIONS["implied-by"].format(statement=row.literal_conclusion),
                "options": {"a": row.literal_premise, "b": row.metaphorical_premise}},
        gold="a", meta={"row": row.row, "direction": "implied-by"},
    )
    return [implies, implied_by]


# -- the model side ------------------------------------------------------------------------


def _check_order(order: Sequence[str]) -> tuple[str, str]:
    if sorted(order) != list(OPTION_KEYS):
        raise ValueError(f"order must be a permutation of {OPTION_KEYS}, not {tuple(order)!r}")
    return order[0], order[1]


def question_text(prompt: Mapping[str, Any], wording: int | str = 3, order: Sequence[str] = OPTION_KEYS) -> str:
    """Appendix A wording 1-4, or a baseline ("empty", "pick"), with the options in `order`."""
    first, second = (prompt["options"][key] for key in _check_order(order))
    if wording in BASELINES:
        template = BASELINES[str(wording)]
    else:
        try:
            template = WORDINGS[prompt["direction"]][int(wording)]
        except (KeyError, ValueError):
            raise ValueError(f"unknown MiQA wording {wording!r}; use 1-4, 'empty' or 'pick'") from None
    return template.format(statement=prompt["statement"], first=first, second=second)


def _continuation(context: str, option: str) -> str:
    return option if not context or context.endswith(("\n", " ")) else " " + option


def solved_text(prompt: Mapping[str, Any], gold: str, wording: int | str = 3, order: Sequence[str] = OPTION_KEYS) -> str:
    """A question followed by its correct answer: one shot of a k-shot prefix."""
    context = question_text(prompt, wording, order)
    return context + _continuation(context, prompt["options"][gold])


def select_shots(item: ItemData, pool: Sequence[ItemData], k: int, seed: int = 0) -> list[ItemData]:
    """k solved questions of the same direction, drawn at random per item (seeded); never the item's
    own row, whose other question shares its sentences."""
    if k == 0:
        return []
    candidates = sorted((other for other in pool
                         if other.prompt["direction"] == item.prompt["direction"]
                         and other.meta["row"] != item.meta["row"] and not other.is_attention_check),
                        key=lambda other: other.key)
    if k > len(candidates):
        raise ValueError(f"{k} shots asked for, only {len(candidates)} questions available")
    return seeded_rng("miqa", "shots", seed, item.key, k).sample(candidates, k)


def choice_prompt(prompt: Mapping[str, Any], wording: int | str = 3, order: Sequence[str] = OPTION_KEYS,
                  shots: Sequence[ItemData] = (), seed: int = 0) -> ChoicePrompt:
    """Context (shots, then the question with options in `order`) and each option as continuation.

    Each shot shows its options in a seeded random order, so the prefix does not teach a position.
    """
    prefix = ""
    for shot in shots:
        shot_order = seeded_rng("miqa", "shot-order", seed, shot.key).sample(OPTION_KEYS, 2)
        prefix += solved_text(shot.prompt, shot.gold, wording, shot_order) + SHOT_SEPARATOR
    context = prefix + question_text(prompt, wording, order)
    return ChoicePrompt(context=context,
                        continuations={key: _continuation(context, prompt["options"][key]) for key in OPTION_KEYS})


def both_orders(item: ItemData, pool: Sequence[ItemData] = (), k: int = 0, wording: int | str = 3,
                seed: int = 0) -> list[tuple[tuple[str, str], ChoicePrompt]]:
    """The item presented twice, options swapped the second time (the paper averages the two)."""
    shots = select_shots(item, pool, k, seed)
    return [(order, choice_prompt(item.prompt, wording, order, shots, seed)) for order in (("a", "b"), ("b", "a"))]


def nli_pairs(prompt: Mapping[str, Any]) -> dict[str, tuple[str, str]]:
    """(premise, hypothesis) per option for an NLI cross-encoder, scored as 1 - P(contradiction)."""
    statement = prompt["statement"]
    if prompt["direction"] == "implies":
        return {key: (statement, option) for key, option in prompt["options"].items()}
    return {key: (option, statement) for key, option in prompt["options"].items()}


# -- the generative task -------------------------------------------------------------------


def generative_question_id(row: int) -> str:
    return f"miqa-{row:03d}-generative"


def generative_prompt(implies_prompt: Mapping[str, Any]) -> str:
    """Section 5.2: "M_p". Could that imply that "L_c"? (the adversarial literal reading)."""
    if implies_prompt["direction"] != "implies":
        raise ValueError("the generative question is built from an 'implies' question")
    return GENERATIVE_PROMPT.format(premise=implies_prompt["statement"], conclusion=implies_prompt["options"]["a"])


@dataclass(frozen=True)
class GenerativeAnswer:
    question_id: str
    model: str
    answer: str
    line: int


def parse_generative_answers(path: Path, known_ids: Collection[str] | None = None) -> list[GenerativeAnswer]:
    """JSONL, one object a line with string fields question_id, model, answer; errors name the line."""
    label = Path(path).name
    if not Path(path).is_file():
        raise DatasetError(label, "file not found")
    answers: list[GenerativeAnswer] = []
    seen: set[tuple[str, str]] = set()
    for number, line in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as exc:
            raise DatasetError(label, f"not valid JSON ({exc.msg} at column {exc.colno})", row=number) from None
        if not isinstance(record, dict):
            raise DatasetError(label, "expected a JSON object", row=number)
        missing = [name for name in ("question_id", "model", "answer") if name not in record]
        if missing:
            raise DatasetError(label, f"missing field(s) {', '.join(missing)}", row=number)
        wrong = [name for name in ("question_id", "model", "answer") if not isinstance(record[name], str)]
        if wrong:
            raise DatasetError(label, f"field(s) {', '.join(wrong)} must be strings", row=number)
        question_id, model = record["question_id"].strip(), record["model"].strip()
        if not question_id or not model:
            raise DatasetError(label, "question_id and model must not be empty", row=number)
        if known_ids is not None and question_id not in known_ids:
            raise DatasetError(label, f"unknown question_id {question_id!r}", row=number)
        if (question_id, model) in seen:
            raise DatasetError(label, f"a second answer of {model!r} to {question_id!r}", row=number)
        seen.add((question_id, model))
        answers.append(GenerativeAnswer(question_id, model, record["answer"], number))
    return answers


def rating_value(rating: str) -> float:
    try:
        return RATING_SCALE[rating.strip().lower()]
    except KeyError:
        raise ValueError(f"unknown rating {rating!r}; use {', '.join(RATING_SCALE)}") from None


def option_order(participant: str, item_key: str, seed: int = 0) -> tuple[str, str]:
    """The on-screen order of one participant's options for one item: random, reproducible."""
    first, second = seeded_rng("miqa", "screen", seed, participant, item_key).sample(OPTION_KEYS, 2)
    return first, second


class MiQA(Benchmark):
    name = "miqa"
    title = "MiQA: metaphorical inference (Comsa et al.)"
    item_template = "annotation/partials/_item_miqa.html"
    default_design: Mapping[str, Any] = {
        "split": "test",
        "units": 1,
        "per_unit": 15,
        "unit_size": 300,
        "attention_checks": 0,
        "exclude_at": 0,
        "shuffle_items": True,
        "shuffle_options": True,
    }
    default_consent = CONSENT
    default_instructions = INSTRUCTIONS

    def source_files(self) -> list[SourceFile]:
        return [_SOURCE]

    def load(self, source: Path, options: Mapping[str, Any] | None = None) -> ImportBundle:
        items = [item for row in read_rows(Path(source) / FILENAME) for item in row_items(row)]
        return ImportBundle(items=items)

    def attention_checks(self) -> list[ItemData]:
        return [
            ItemData(key=f"attention-{number}", split="attention",
                     prompt={"direction": "attention", "statement": "", "question": question,
                             "options": {"a": right, "b": wrong}},
                     gold="a", meta={"direction": "attention"}, is_attention_check=True)
            for number, (question, right, wrong) in enumerate(ATTENTION_CHECKS, start=1)
        ]

    # -- the human side ------------------------------------------------------------------
    def choices(self, item_prompt: Mapping[str, Any], design: Mapping[str, Any],
                order: Sequence[str] = OPTION_KEYS) -> list[Choice]:
        return [Choice(key, item_prompt["options"][key], (str(position),))
                for position, key in enumerate(_check_order(order), start=1)]

    def present(self, item_prompt: Mapping[str, Any], design: Mapping[str, Any],
                order: Sequence[str] = OPTION_KEYS) -> dict[str, Any]:
        """The question and its two options in on-screen `order` (keys 1 and 2 by position)."""
        return {
            "question": item_prompt["question"],
            "options": [{"value": choice.value, "label": choice.label, "keys": list(choice.keys)}
                        for choice in self.choices(item_prompt, design, order)],
            "order": list(_check_order(order)),
        }

    def screen(self, item_key: str, item_prompt: Mapping[str, Any], design: Mapping[str, Any], *,
               viewer: str) -> Screen:
        """The options in this participant's random order (`shuffle_options`), stored with the
        answer as e.g. "ba"; the answer itself is the option key, whatever the order."""
        order = option_order(viewer, item_key, int(design.get("seed", 0))) if design.get("shuffle_options") \
            else OPTION_KEYS
        return Screen(template=self.item_template, shown=self.present(item_prompt, design, order),
                      choices=self.choices(item_prompt, design, order), record={"option_order": "".join(order)})

    def parse_answer(self, raw: str) -> str | None:
        value = raw.strip().lower()
        return value if value in OPTION_KEYS else None

    # -- design --------------------------------------------------------------------------
    def build_units(self, items: Sequence[ItemData], design: Mapping[str, Any]) -> list[list[str]]:
        """`units` consecutive blocks of `unit_size` questions in key order (both questions of a row
        stay in one unit); the per-participant item order and option order are drawn at display."""
        pool = sorted((item for item in items if item.split == design["split"] and not item.is_attention_check),
                      key=lambda item: item.key)
        units, size = int(design["units"]), int(design["unit_size"])
        if units * size > len(pool):
            raise ValueError(f"{units} units of {size} questions need {units * size}; only {len(pool)} are imported")
        return [[item.key for item in pool[index * size:(index + 1) * size]] for index in range(units)]

    # -- the model side ------------------------------------------------------------------
    def choice_prompt(self, item_prompt: Mapping[str, Any], wording: int | str = 3,
                      order: Sequence[str] = OPTION_KEYS, shots: Sequence[ItemData] = (), seed: int = 0) -> ChoicePrompt:
        return choice_prompt(item_prompt, wording, order, shots, seed)

    # -- model runs (miqa_model.py) ------------------------------------------------------------
    default_model_setting: Mapping[str, Any] = miqa_model.DEFAULT_SETTING
    model_kinds = ("causal", "seq2seq", "nli")

    def check_model_setting(self, setting: Mapping[str, Any]) -> None:
        miqa_model.check_setting(setting)

    def model_settings(self, sweep: bool = False) -> list[dict[str, Any]]:
        return miqa_model.sweep_settings() if sweep else [self.model_setting()]

    def model_setting_label(self, setting: Mapping[str, Any]) -> str:
        return miqa_model.setting_label(setting)

    def model_pool_split(self, setting: Mapping[str, Any]) -> str | None:
        return "test" if int(setting.get("k", 0)) > 0 else None

    def model_requests(self, items: Sequence[ItemData], assets: Mapping[str, Any], setting: Mapping[str, Any], *,
                       pool: Sequence[ItemData] = (), prior: Mapping[str, Any] | None = None,
                       kind: str = "causal") -> list[Any]:
        return miqa_model.requests(items, setting, pool, kind)

    def model_answers(self, items: Sequence[ItemData], setting: Mapping[str, Any], results: Mapping[str, Any], *,
                      assets: Mapping[str, Any] | None = None, kind: str = "causal") -> dict[str, ModelAnswer]:
        return miqa_model.answers(items, results, kind)
