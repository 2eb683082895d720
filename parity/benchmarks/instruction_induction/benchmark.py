"""The instruction-induction benchmark definition: 24 tasks x 100 induction prompts, the gold
references and the execute sets as assets, a writing page for humans."""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, ClassVar

from ...messages import Message, gettext_noop
from ..base import Asset, Benchmark, DatasetError, DemoSetup, ImportBundle, ItemData, ResultsInput, Scored, SourceFile
from ..consent import RECORDED_ON_THE_PAGE
from ..design import DesignOption
from ..rows import seeded_rng
from ..sections import Sections
from ..tables import Table
from ..timing import AnswerTime
from . import model as model_side
from . import sources, tables
from .prompts import (
    INDUCTION_PREFIX,
    INDUCTION_SUFFIX,
    TASK_METRICS,
    induction_prompt,
    parse_demonstrations,
)

TASKS: tuple[str, ...] = (
    "active_to_passive",
    "antonyms",
    "cause_and_effect",
    "common_concept",
    "diff",
    "first_word_letter",
    "informal_to_formal",
    "larger_animal",
    "letters_list",
    "negation",
    "num_to_verbal",
    "orthography_starts_with",
    "rhymes",
    "second_word_letter",
    "sentence_similarity",
    "sentiment",
    "singular_to_plural",
    "sum",
    "synonyms",
    "taxonomy_animal",
    "translation_en-de",
    "translation_en-es",
    "translation_en-fr",
    "word_in_context",
)
PROMPTS_PER_TASK = 100
#: execute-set keys that list further acceptable answers beside `output`
_EXTRA_ANSWERS = {
    "rhymes": "other_rhymes",
    "translation_en-de": "possible_translations",
    "translation_en-es": "possible_translations",
    "translation_en-fr": "possible_translations",
    "word_in_context": "possible_outputs",
}

CONSENT = (
    "You are invited to take part in a research study on how people describe tasks in words. "
    "You will see a few examples of inputs and outputs and write the instruction that was followed. "
    "Taking part is voluntary; you may stop at any time by returning the study on Prolific. "
    "Your answers are stored under a pseudonym and used only for research; your Prolific ID is kept "
    "only to pay you and is never published." + RECORDED_ON_THE_PAGE
)
INSTRUCTIONS = (
    "Each screen shows five inputs and the outputs a friend wrote after reading an instruction. "
    "Write that instruction, as you would give it to someone else, in one or two sentences. "
    "There is no single right wording. You cannot go back to change an answer."
)


class _RepeatedName(ValueError):
    pass


def _refusing_repeated_names(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    found: dict[str, Any] = {}
    for name, value in pairs:
        if name in found:
            raise _RepeatedName(name)
        found[name] = value
    return found


def _read_json(source: Path, relative: str) -> Any:
    path = source / relative
    if not path.is_file():
        raise DatasetError(relative, "file not found")
    try:
        return json.loads(path.read_text(encoding="utf-8"), object_pairs_hook=_refusing_repeated_names)
    except _RepeatedName as exc:
        raise DatasetError(
            relative,
            f"the name {exc.args[0]!r} appears twice in one object (an example id "
            "must be unique; JSON would silently keep the last)",
        ) from None
    except UnicodeDecodeError as exc:
        raise DatasetError(relative, f"not UTF-8 text ({exc.reason} at byte {exc.start})") from exc
    except json.JSONDecodeError as exc:
        raise DatasetError(relative, f"not valid JSON ({exc.msg} at line {exc.lineno})", row=exc.lineno) from None


def _examples(source: Path, relative: str) -> dict[str, dict[str, Any]]:
    """The `examples` mapping of a raw/induction file, checked against its `num_examples`."""
    data = _read_json(source, relative)
    if not isinstance(data, dict) or not isinstance(data.get("examples"), dict):
        raise DatasetError(relative, "expected an object with an 'examples' object")
    examples = data["examples"]
    declared = data.get("metadata", {}).get("num_examples")
    if declared is not None and declared != len(examples):
        raise DatasetError(relative, f"metadata says {declared} examples, found {len(examples)} (truncated?)")
    for key, example in examples.items():
        if not isinstance(example, dict):
            raise DatasetError(relative, f"example {key} is not an object")
    return examples


def _need(relative: str, key: str, example: Mapping[str, Any], *fields: str) -> None:
    missing = [name for name in fields if name not in example]
    if missing:
        raise DatasetError(relative, f"example {key} lacks {', '.join(missing)}")


def _unique(values: Sequence[Any]) -> list[str]:
    seen: list[str] = []
    for value in values:
        text = str(value)
        if text not in seen:
            seen.append(text)
    return seen


def execute_entries(task: str, examples: Mapping[str, Mapping[str, Any]], relative: str) -> list[dict[str, Any]]:
    """The held-out inputs of a task with every acceptable answer (Appendix A, the authors' scripts)."""
    entries: list[dict[str, Any]] = []
    for key, example in examples.items():
        if task == "cause_and_effect":
            # both sentence orders of every pair, as the paper does, doubling the 25 pairs
            _need(relative, key, example, "cause", "effect")
            cause, effect = example["cause"], example["effect"]
            for x in (f"Sentence 1: {cause} Sentence 2: {effect}", f"Sentence 1: {effect} Sentence 2: {cause}"):
                entries.append({"id": key, "input": x, "outputs": [cause]})
        elif task == "common_concept":
            _need(relative, key, example, "items", "all_common_concepts")
            entries.append(
                {"id": key, "input": ", ".join(example["items"]), "outputs": _unique(example["all_common_concepts"])}
            )
        else:
            # sentence_similarity too: the paper's label is the number with its words ("3 - probably",
            # Appendix A), and only that full label is right; "3" or "probably" alone is not
            _need(relative, key, example, "input", "output")
            extra = example.get(_EXTRA_ANSWERS[task], []) if task in _EXTRA_ANSWERS else []
            if not isinstance(extra, list):
                raise DatasetError(relative, f"example {key}: {_EXTRA_ANSWERS[task]} is not a list")
            entries.append({"id": key, "input": example["input"], "outputs": _unique([example["output"], *extra])})
    return entries


def induction_items(task: str, examples: Mapping[str, Mapping[str, Any]], relative: str) -> list[ItemData]:
    items = []
    for key, example in examples.items():
        _need(relative, key, example, "input")
        text = example["input"]
        if not (text.startswith(INDUCTION_PREFIX) and text.endswith(INDUCTION_SUFFIX)):
            raise DatasetError(relative, f"example {key} is not wrapped in the induction prompt")
        try:
            demonstrations = parse_demonstrations(text[len(INDUCTION_PREFIX) : -len(INDUCTION_SUFFIX)])
        except ValueError as exc:
            raise DatasetError(relative, f"example {key}: {exc}") from None
        if len(demonstrations) != 5 or induction_prompt(demonstrations) != text:
            raise DatasetError(relative, f"example {key} does not hold exactly five demonstrations")
        number = int(key)
        items.append(
            ItemData(
                key=f"{task}-{number:03d}",
                split="induce",
                prompt={"task": task, "demonstrations": demonstrations, "text": text},
                gold="",
                meta={"task": task, "n": number},
            )
        )
    return items


class InstructionInduction(Benchmark):
    name = "instruction_induction"
    title = "Instruction induction (Honovich et al.)"
    item_template = "participation/partials/_item_instruction.html"
    free_text_answers = False
    manual_verification = True  # Section 3.3: a researcher marks each written instruction correct or not
    default_design: ClassVar[Mapping[str, Any]] = {
        "split": "induce",
        "tasks_per_participant": 6,
        "annotators_per_task": 5,
        "per_unit": 1,
        "min_chars": 15,
        "attention_checks": 0,
        "exclude_at": 0,
        "seed": 0,
    }
    design_options = (
        DesignOption(
            "tasks_per_participant",
            "Tasks per participant",
            minimum=1,
            maximum=24,
            help="each a different task, balanced so that tasks are used evenly",
        ),
        DesignOption(
            "annotators_per_task",
            "Participants per task",
            minimum=1,
            help="how many people write an instruction for each task",
        ),
        DesignOption("per_unit", "Participants per unit", minimum=1),
        DesignOption("min_chars", "Shortest instruction accepted (characters)", minimum=1),
        DesignOption("seed", "Seed of the prompt draw", minimum=0),
    )
    default_consent = CONSENT
    category_field = "task"
    # generating and executing instructions takes far longer on a CPU than the rest of the demo together
    demo = DemoSetup(
        study="Instruction induction demo",
        split="induce",
        imported="Imported instruction induction: {created} items",
        model_run=False,
    )
    executes_instructions = True
    default_instructions = INSTRUCTIONS

    def source_files(self) -> list[SourceFile]:
        return sources.source_files()

    def load(self, source: Path, options: Mapping[str, Any] | None = None) -> ImportBundle:
        source = Path(source)
        items: list[ItemData] = []
        references: dict[str, list[str]] = {}
        execute: dict[str, list[dict[str, Any]]] = {}
        induce_sizes: dict[str, int] = {}
        for task in TASKS:
            relative = f"induction_input/{task}.json"
            prompts = _examples(source, relative)
            if len(prompts) != PROMPTS_PER_TASK:
                raise DatasetError(relative, f"expected {PROMPTS_PER_TASK} induction prompts, found {len(prompts)}")
            items.extend(induction_items(task, prompts, relative))
            relative = f"annotations/{task}.json"
            annotations = _read_json(source, relative)
            gold = annotations.get("annotations") if isinstance(annotations, dict) else None
            if (
                not isinstance(gold, list)
                or not gold
                or not all(isinstance(text, str) and text.strip() for text in gold)
            ):
                raise DatasetError(relative, "expected a non-empty 'annotations' list of instructions")
            references[task] = [text.strip() for text in gold]
            relative = f"raw/execute/{task}.json"
            execute[task] = execute_entries(task, _examples(source, relative), relative)
            induce_sizes[task] = len(_examples(source, f"raw/induce/{task}.json"))
        metrics = {task: TASK_METRICS.get(task, "exact") for task in TASKS}
        return ImportBundle(
            items=items,
            assets=[
                Asset("references", references),
                Asset("execute", execute),
                Asset("metrics", metrics),
                Asset("induce_sizes", induce_sizes),
            ],
        )

    # -- the human side ------------------------------------------------------------------
    def present(self, item_prompt: Mapping[str, Any], design: Mapping[str, Any]) -> dict[str, Any]:
        """The induction prompt as models see it, in parts; never the task's name."""
        return {
            "intro": INDUCTION_PREFIX.strip(),
            "demonstrations": [{"input": x, "output": y} for x, y in item_prompt["demonstrations"]],
            "closing": INDUCTION_SUFFIX.strip(),
            "text": item_prompt["text"],
            "min_chars": int(design.get("min_chars", self.default_design["min_chars"])),
        }

    def parse_answer(self, raw: str, design: Mapping[str, Any] | None = None) -> str | None:
        minimum = int((design or self.default_design).get("min_chars", self.default_design["min_chars"]))
        text = raw.strip()
        return text if len(text) >= minimum else None

    def score(
        self, raw: str, gold: str, design: Mapping[str, Any] | None = None, *, item: ItemData | None = None
    ) -> Scored:
        """Valid when long enough; `correct` stays False: a written instruction has no single gold,
        it is judged later against the references, by execution and by a researcher's mark."""
        answer = self.parse_answer(raw, design)
        return Scored(answer=answer, correct=False, valid=answer is not None)

    def refusal(self, raw: str, scored: Scored, design: Mapping[str, Any], *, item: ItemData | None = None) -> str:
        if scored.valid:
            return ""
        minimum = int(design.get("min_chars", self.default_design["min_chars"]))
        written = len(raw.strip())
        return Message(
            gettext_noop(
                "Please write the instruction in at least {minimum} characters "
                "(you wrote {written}). Your answer has not been saved yet."
            ),
            minimum=minimum,
            written=written,
        )

    def item_category(self, item: ItemData) -> str:
        return str(item.meta.get("task", ""))

    # -- design --------------------------------------------------------------------------
    #: Honovich et al. give no time; five input-output demonstrations to read and work out, and
    #: a sentence of instruction to write
    answer_time = AnswerTime(
        90, "Honovich et al. report no time: five demonstrations to read and work out, one instruction to write"
    )

    def answers_per_participant(self, design: Mapping[str, Any]) -> int | None:
        return int(design["tasks_per_participant"]) + int(design.get("attention_checks", 0))

    def build_units(self, items: Sequence[ItemData], design: Mapping[str, Any]) -> list[list[str]]:
        """Units of `tasks_per_participant` different tasks, one prompt each, until every task has
        `annotators_per_task` prompts; tasks are used evenly and no prompt twice (seeded)."""
        per_participant = int(design["tasks_per_participant"])
        annotators = int(design["annotators_per_task"])
        rng = seeded_rng("instruction_induction", "units", design.get("seed", 0))
        prompts: dict[str, list[str]] = {}
        for item in sorted(items, key=lambda item: item.key):
            if item.split == design["split"] and not item.is_attention_check:
                prompts.setdefault(item.meta["task"], []).append(item.key)
        tasks = sorted(prompts)
        if per_participant < 1 or per_participant > len(tasks):
            raise ValueError(f"tasks_per_participant must be between 1 and {len(tasks)}, not {per_participant}")
        unit_count = math.ceil(len(tasks) * annotators / per_participant)
        most_uses = math.ceil(unit_count * per_participant / len(tasks))
        short = [task for task in tasks if len(prompts[task]) < most_uses]
        if short:
            raise ValueError(f"{most_uses} prompts per task are needed; fewer are imported for {', '.join(short)}")
        for task in tasks:
            rng.shuffle(prompts[task])
        uses = dict.fromkeys(tasks, 0)
        units: list[list[str]] = []
        for _ in range(unit_count):
            order = sorted(tasks, key=lambda task: (uses[task], rng.random()))
            unit = []
            for task in order[:per_participant]:
                unit.append(prompts[task][uses[task]])
                uses[task] += 1
            units.append(unit)
        return units

    # -- model runs (model.py) -----------------------------------------------------------------
    model_module: ClassVar[Any] = model_side
    default_model_setting: ClassVar[Mapping[str, Any]] = model_side.DEFAULT_SETTING
    model_setting_options: ClassVar[tuple[DesignOption, ...]] = model_side.SETTING_OPTIONS

    # -- results (results.py) --------------------------------------------------------------
    def breakdowns(self, results_input: ResultsInput) -> Sections:
        from . import results as results_side  # numpy: loaded when results are computed

        return results_side.breakdowns(results_input)

    def sections_type(self) -> type[Sections]:
        from .sections import InductionSections  # numpy, as above

        return InductionSections

    def paper_tables(self, sections: Sections) -> list[Table]:
        return tables.induction_tables(sections)
