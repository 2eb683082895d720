"""MiQA (Comsa et al., "MiQA: A Benchmark for Inference on Metaphorical Questions").

150 rows (literal premise L_p, metaphorical premise M_p, literal conclusion L_c, metaphorical
conclusion M_c) -> 300 binary questions. "implies": given M_p, pick M_c over L_c. "implied-by":
given L_c, pick L_p over M_p. Options are stored in the order of the paper's Table 1 (the literal
sentence first: a = L_c / L_p); humans see them in a per-participant random order, models see
both orders. This module reads the file, builds the items and the participant's screen, and
reads the generative answers (PaLM answers rated correct / ambiguous / wrong); the wordings are in
`prompts`, the model side in `model`.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

from ..base import (
    Benchmark,
    Choice,
    ChoicePrompt,
    DatasetError,
    DemoSetup,
    ImportBundle,
    ItemData,
    ResultsInput,
    Screen,
    SourceFile,
    read_jsonl_rows,
    read_text,
)
from ..design import DesignOption, ShortPool
from ..rows import content_key, refuse_duplicate_rows, seeded_rng
from ..sections import Sections
from ..timing import AnswerTime
from . import model as model_side
from .prompts import (
    ATTENTION_CHECKS,
    CONSENT,
    HUMAN_QUESTIONS,
    INSTRUCTIONS,
    OPTION_KEYS,
    _check_order,
    choice_prompt,
)

FILENAME = "metaphor_inference_qa.tsv"
COLUMNS = ("literal_premise", "metaphorical_premise", "literal_conclusion", "metaphorical_conclusion")
ROWS = 150
DIRECTIONS = ("implies", "implied-by")
K_SHOTS = (0, 1, 5)
_SOURCE = SourceFile(
    path=FILENAME,
    url="https://raw.githubusercontent.com/google-research/language/865fae65f63ef7e6b2989d4ff8b47f61750415a8"
    "/language/miqa/metaphor_inference_qa.tsv",
    sha256="0b0a4c2a9691cbd1566dfbf708444f1fde609f947f24dfd6ea2eca21b2784538",
)

# The question as a participant reads it (Table 1 and the dataset README).
#: the rating of a generative answer, and what it counts towards accuracy
RATING_SCALE: dict[str, float] = {"correct": 1.0, "ambiguous": 0.5, "wrong": 0.0}

# -- the data ------------------------------------------------------------------------------


@dataclass(frozen=True)
class MiqaRow:
    row: int
    literal_premise: str
    metaphorical_premise: str
    literal_conclusion: str
    metaphorical_conclusion: str
    line: int = 0  # the row in the file as a spreadsheet counts (the header is row 1)


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
    rows: list[MiqaRow] = []
    for line_number, values in enumerate(lines[1:], start=2):
        if not any(value.strip() for value in values):
            continue
        if len(values) != len(COLUMNS):
            raise DatasetError(
                label,
                f"expected {len(COLUMNS)} tab-separated fields, found {len(values)}"
                + (" (truncated?)" if len(values) < len(COLUMNS) else ""),
                row=line_number,
            )
        empty = [column for column, value in zip(COLUMNS, values) if not value.strip()]
        if empty:
            raise DatasetError(label, f"empty field(s) {', '.join(empty)} (truncated?)", row=line_number)
        literal_premise, metaphorical_premise, literal_conclusion, metaphorical_conclusion = (
            value.strip() for value in values
        )
        rows.append(
            MiqaRow(
                len(rows) + 1,
                literal_premise,
                metaphorical_premise,
                literal_conclusion,
                metaphorical_conclusion,
                line=line_number,
            )
        )
    if expected is not None and len(rows) != expected:
        raise DatasetError(label, f"expected {expected} rows, found {len(rows)} (truncated?)")
    return rows


def question_key(direction: str, statement: str, first: str, second: str) -> str:
    """A question is its statement and its two options in Table 1 order; the file has no ids, so the
    key hashes them (a row inserted above it leaves it alone)."""
    return f"miqa-{direction}-{content_key(statement, first, second)}"


def _question(row: MiqaRow, direction: str, statement: str, a: str, b: str, gold: str) -> ItemData:
    return ItemData(
        key=question_key(direction, statement, a, b),
        split="test",
        prompt={
            "direction": direction,
            "statement": statement,
            "question": HUMAN_QUESTIONS[direction].format(statement=statement),
            "options": {"a": a, "b": b},
        },
        gold=gold,
        meta={"row": row.row, "direction": direction},
    )


def row_items(row: MiqaRow) -> list[ItemData]:
    return [
        _question(row, "implies", row.metaphorical_premise, row.literal_conclusion, row.metaphorical_conclusion, "b"),
        _question(row, "implied-by", row.literal_conclusion, row.literal_premise, row.metaphorical_premise, "a"),
    ]


# -- the generative task -------------------------------------------------------------------


def generative_question_id(row: int) -> str:
    return f"miqa-{row:03d}-generative"


@dataclass(frozen=True)
class GenerativeAnswer:
    question_id: str
    model: str
    answer: str
    line: int


def parse_generative_answers(path: Path, known_ids: Collection[str] | None = None) -> list[GenerativeAnswer]:
    """JSONL, one object a line with string fields question_id, model, answer; errors name the line."""
    label = Path(path).name
    answers: list[GenerativeAnswer] = []
    seen: set[tuple[str, str]] = set()
    for number, record in read_jsonl_rows(Path(path), name=label):
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


def question_order(item_key: str, seed: int = 0) -> tuple[str, str]:
    """The on-screen order of one item's options for every participant (no per-person shuffle)."""
    first, second = seeded_rng("miqa", "question-order", seed, item_key).sample(OPTION_KEYS, 2)
    return first, second


class MiQA(Benchmark):
    name = "miqa"
    title = "MiQA: metaphorical inference (Comsa et al.)"
    item_template = "participation/partials/_item_miqa.html"
    default_design: ClassVar[Mapping[str, Any]] = {
        "split": "test",
        "units": 1,
        "per_unit": 15,
        "unit_size": 300,
        "attention_checks": 0,
        "exclude_at": 0,
        "shuffle_items": True,
        "shuffle_options": True,
    }
    design_options = (
        DesignOption("units", "Units", help="blocks of consecutive questions; each participant does one", minimum=1),
        DesignOption("unit_size", "Questions per unit", help="both questions of a row stay in one unit", minimum=1),
        DesignOption("per_unit", "Participants per unit", minimum=1),
        DesignOption("attention_checks", "Attention checks per participant", minimum=0, maximum=len(ATTENTION_CHECKS)),
        DesignOption("exclude_at", "Exclude at failed checks", minimum=0, help="0: never exclude"),
        DesignOption("shuffle_items", "Shuffle questions per participant", kind="bool"),
        DesignOption(
            "shuffle_options",
            "Shuffle the two options per participant",
            kind="bool",
            help="the order shown is stored with each answer",
        ),
    )
    default_consent = CONSENT
    default_instructions = INSTRUCTIONS
    category_field = "direction"
    demo = DemoSetup(study="MiQA demo", split="test", imported="Imported MiQA: {created} items")
    #: generative answers (wording "generative") are graded in a rating study
    rating_benchmark = "miqa_rating"
    averaged_score = "averaged_correct"

    def rated_variant(self, setting: Mapping[str, Any]) -> str:
        return model_side.GENERATIVE if str(setting.get("wording")) == model_side.GENERATIVE else ""

    def rated_question_id(self, meta: Mapping[str, Any]) -> str:
        return generative_question_id(int(meta["row"]))

    def source_files(self) -> list[SourceFile]:
        return [_SOURCE]

    def load(self, source: Path, options: Mapping[str, Any] | None = None) -> ImportBundle:
        rows = read_rows(Path(source) / FILENAME)
        built = [(item, row.line) for row in rows for item in row_items(row)]
        refuse_duplicate_rows(FILENAME, ((item.key, line) for item, line in built), "question")
        return ImportBundle(items=[item for item, _ in built])

    def attention_checks(self) -> list[ItemData]:
        return [
            ItemData(
                key=f"attention-{number}",
                split="attention",
                prompt={
                    "direction": "attention",
                    "statement": "",
                    "question": question,
                    "options": {"a": right, "b": wrong},
                },
                gold="a",
                meta={"direction": "attention"},
                is_attention_check=True,
            )
            for number, (question, right, wrong) in enumerate(ATTENTION_CHECKS, start=1)
        ]

    # -- the human side ------------------------------------------------------------------
    def choices(
        self, item_prompt: Mapping[str, Any], design: Mapping[str, Any], order: Sequence[str] = OPTION_KEYS
    ) -> list[Choice]:
        """One button per screen position, posting the position ("1", "2"), never the option key:
        the correct key follows from the question's direction, so a key in the page would give
        the answer away to anyone reading its source."""
        return [
            Choice(str(position), item_prompt["options"][key], (str(position),))
            for position, key in enumerate(_check_order(order), start=1)
        ]

    def present(
        self, item_prompt: Mapping[str, Any], design: Mapping[str, Any], order: Sequence[str] = OPTION_KEYS
    ) -> dict[str, Any]:
        """The question and its two options in on-screen `order` (keys 1 and 2 by position)."""
        return {
            "question": item_prompt["question"],
            "options": [
                {"position": choice.value, "label": choice.label} for choice in self.choices(item_prompt, design, order)
            ],
        }

    def screen(
        self, item_key: str, item_prompt: Mapping[str, Any], design: Mapping[str, Any], *, viewer: str
    ) -> Screen:
        """The options in this participant's random order (`shuffle_options`), or, without
        shuffling, in one random order per question shared by every participant (a fixed
        literal-first order would put the correct option at a position the question's direction
        predicts). The buttons post the position; `posted` maps it back to the option key, and the
        order is stored with the answer as e.g. "ba"."""
        seed = int(design.get("seed", 0))
        order = (
            option_order(viewer, item_key, seed) if design.get("shuffle_options") else question_order(item_key, seed)
        )
        return Screen(
            template=self.item_template,
            shown=self.present(item_prompt, design, order),
            choices=self.choices(item_prompt, design, order),
            record={"option_order": "".join(order)},
            posted={str(position): key for position, key in enumerate(order, start=1)},
        )

    def parse_answer(self, raw: str) -> str | None:
        value = raw.strip().lower()
        return value if value in OPTION_KEYS else None

    # -- design --------------------------------------------------------------------------
    #: Comsa et al. give no time (their 15 volunteers were unpaid); a premise and two short
    #: statements, some 25 words, read in ~6 s at 240 words a minute, then one of two
    answer_time = AnswerTime(
        10, "Comsa et al. report no time: a premise and two statements (~25 words) read in ~6 s, then a choice"
    )

    def answers_per_participant(self, design: Mapping[str, Any]) -> int | None:
        return int(design["unit_size"]) + int(design.get("attention_checks", 0))

    def build_units(self, items: Sequence[ItemData], design: Mapping[str, Any]) -> list[list[str]]:
        """`units` consecutive blocks of `unit_size` questions in file order (both questions of a row
        stay in one unit); the per-participant item order and option order are drawn at display."""
        pool = sorted(
            (item for item in items if item.split == design["split"] and not item.is_attention_check),
            key=lambda item: (int(item.meta.get("row", 0)), item.key),
        )
        units, size = int(design["units"]), int(design["unit_size"])
        if units * size > len(pool):
            raise ShortPool(units, size, len(pool), "questions", noun="questions")
        return [[item.key for item in pool[index * size : (index + 1) * size]] for index in range(units)]

    # -- the model side ------------------------------------------------------------------
    def choice_prompt(
        self,
        item_prompt: Mapping[str, Any],
        wording: int | str = 3,
        order: Sequence[str] = OPTION_KEYS,
        shots: Sequence[ItemData] = (),
        seed: int = 0,
    ) -> ChoicePrompt:
        return choice_prompt(item_prompt, wording, order, shots, seed)

    # -- model runs (model_side.py) ------------------------------------------------------------
    model_module: ClassVar[Any] = model_side
    default_model_setting: ClassVar[Mapping[str, Any]] = model_side.DEFAULT_SETTING
    model_setting_options: ClassVar[tuple[DesignOption, ...]] = model_side.SETTING_OPTIONS
    model_kinds = ("causal", "seq2seq", "nli")

    def model_pool_split(self, setting: Mapping[str, Any]) -> str | None:
        return "test" if int(setting.get("k", 0)) > 0 else None

    # -- results (results.py) --------------------------------------------------------------
    def breakdowns(self, results_input: ResultsInput) -> Sections:
        from . import results as results_side  # numpy: loaded when results are computed

        return results_side.breakdowns(results_input)

    def sections_type(self) -> type[Sections]:
        from .sections import MiqaSections

        return MiqaSections
