"""A researcher's own items ("custom"): item sets read from a CSV or JSONL file, each item of one
kind (choice, yes_no, short_text, number, rating, free_text; see `records`).

Every set lives under this one benchmark, its items keyed "NAME/id"; a study chooses its set with
the design option `item_set` (`item_scope`), so its units and its attention checks come from that
set alone. An item says itself how it is answered and scored, so the human side reads the item
(`score(..., item=...)`), not the gold alone.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, ClassVar

from ...messages import Message, gettext_noop
from ..base import Benchmark, Choice, DatasetError, ImportBundle, ItemData, ResultsInput, Scored
from ..design import DesignOption
from ..sections import Sections
from . import model as model_side
from . import scoring
from .prompts import CONSENT, INSTRUCTIONS
from .records import (
    CHOICE,
    FREE_TEXT,
    MAX_CONTEXT_CHARS,
    NUMBER,
    OPTION_KINDS,
    RATING,
    SHORT_TEXT,
    YES_NO,
    check_name,
    items_from_file,
    items_from_records,
)
from .sections import CustomSections

NAME_RULE = "lower-case letters, digits, '-' and '_'"
_YES_NO_CHOICES = (
    Choice("yes", Message(gettext_noop("Yes")), ("y", "1")),
    Choice("no", Message(gettext_noop("No")), ("n", "2")),
)


def choices_for(prompt: Mapping[str, Any]) -> list[Choice]:
    """Buttons for an option kind: Yes / No (keys Y, N), or one per option with keys 1-9 (a
    rating scale of single characters uses them as its keys)."""
    kind, options = prompt.get("kind"), list(prompt.get("options") or [])
    if kind == YES_NO:
        return list(_YES_NO_CHOICES)
    if kind not in OPTION_KINDS:
        return []
    own_keys = kind == RATING and all(len(option) == 1 for option in options)
    return [
        Choice(option, option, (option.lower(),) if own_keys else ((str(number),) if number <= 9 else ()))
        for number, option in enumerate(options, start=1)
    ]


def score_answer(raw: str, item: ItemData) -> Scored:
    """An answer to `item` by its kind: an option (exact), a number (within tolerance), a short text
    by the item's metric against any accepted answer; a rating or a free text is valid or not, never
    right or wrong."""
    kind, text = item.prompt.get("kind"), raw.strip()
    if kind in OPTION_KINDS:
        options = [str(option) for option in item.prompt.get("options") or []]
        answer = text.lower() if kind == YES_NO else text
        if answer not in options:
            return Scored(answer=None, correct=False, valid=False)
        return Scored(answer=answer, correct=kind != RATING and answer == item.gold, valid=True)
    if kind == NUMBER:
        number = scoring.parse_number(text)
        if number is None:
            return Scored(answer=None, correct=False, valid=False)
        answer = scoring.format_number(number)
        return Scored(
            answer=answer,
            valid=True,
            correct=scoring.is_correct(
                scoring.NUMERIC,
                scoring.best_score(
                    scoring.NUMERIC,
                    answer,
                    item.meta.get("answers") or [item.gold],
                    float(item.meta.get("tolerance", 0)),
                ),
            ),
        )
    if not text:
        return Scored(answer=None, correct=False, valid=False)
    if kind == SHORT_TEXT:
        metric = str(item.meta.get("metric", scoring.EXACT))
        value = scoring.best_score(
            metric,
            text,
            item.meta.get("answers") or [item.gold],
            float(item.meta.get("tolerance", 0)),
            item.meta.get("metric_options", ()),
            scoring.inspect_scorer(item.meta),
        )
        return Scored(answer=text, correct=scoring.is_correct(metric, value), valid=True)
    return Scored(answer=text, correct=False, valid=True)


class CustomItems(Benchmark):
    name = "custom"
    title = "Your own items (CSV or JSONL)"
    item_template = "participation/partials/_item_custom.html"
    source_is_file = True
    named_sets = True
    answer_defining_meta = ("kind", "answers", "metric", "tolerance", "metric_options", "scale", "model")
    default_design: ClassVar[Mapping[str, Any]] = {
        "item_set": "",
        "split": "test",
        "unit_size": 0,  # 0: the whole set in one unit
        "per_unit": 5,
        "attention_checks": 0,
        "exclude_at": 0,
        "shuffle_items": True,
    }
    design_options = (
        DesignOption("item_set", "Item set", kind="text", help="the NAME the items were imported under"),
        DesignOption("split", "Split", kind="text", help="the items' split (default test)"),
        DesignOption(
            "unit_size",
            "Items per unit",
            minimum=0,
            help="consecutive blocks in file order, one per participant; 0: every item in one unit",
        ),
        DesignOption("per_unit", "Participants per unit", minimum=1),
        DesignOption(
            "attention_checks",
            "Attention checks per participant",
            minimum=0,
            help="drawn from the set's items marked attention_check",
        ),
        DesignOption("exclude_at", "Exclude at failed checks", minimum=0, help="0: never exclude"),
        DesignOption("shuffle_items", "Shuffle items per participant", kind="bool"),
    )
    default_consent = CONSENT
    default_instructions = INSTRUCTIONS
    items_in_study_language = True
    category_field = "category"

    # -- data in -------------------------------------------------------------------------
    def load(self, source: Path, options: Mapping[str, Any] | None = None) -> ImportBundle:
        """`source` is the CSV or JSONL file; options["name"] the item set's name (a slug),
        options["max_context_chars"] the longest context a model may read."""
        options = options or {}
        name = str(options.get("name") or "")
        path = Path(source)
        if not path.is_file():
            raise DatasetError(path.name or str(path), "a CSV or JSONL file of items is needed (--source FILE)")
        return items_from_file(
            path,
            name=check_name(name, path.name),
            label=str(options.get("label") or path.name),
            max_context_chars=int(options.get("max_context_chars") or MAX_CONTEXT_CHARS),
        )

    def load_records(
        self, records: Sequence[Mapping[str, Any]], options: Mapping[str, Any] | None = None
    ) -> ImportBundle:
        options = options or {}
        return items_from_records(
            records,
            name=str(options.get("name") or ""),
            label=str(options.get("label") or "records"),
            lines=options.get("lines"),
            max_context_chars=int(options.get("max_context_chars") or MAX_CONTEXT_CHARS),
        )

    # -- the human side ------------------------------------------------------------------
    def choices(self, item_prompt: Mapping[str, Any], design: Mapping[str, Any]) -> list[Choice]:
        return choices_for(item_prompt)

    def present(self, item_prompt: Mapping[str, Any], design: Mapping[str, Any]) -> dict[str, Any]:
        """What the page shows: the kind, text, context and whether they are Markdown; never the
        gold, which with the metric and accepted answers stays in the item's meta."""
        kind = item_prompt.get("kind")
        return {
            "kind": kind,
            "text": item_prompt.get("text", ""),
            "context": item_prompt.get("context", ""),
            "markdown": item_prompt.get("format") == "markdown",
            "long": kind == FREE_TEXT,
            "numeric": kind == NUMBER,
        }

    def parse_answer(self, raw: str) -> str | None:
        return raw.strip() or None

    def score(
        self, raw: str, gold: str, design: Mapping[str, Any] | None = None, *, item: ItemData | None = None
    ) -> Scored:
        if item is None:  # a caller that knows only the gold: the exact answer
            return super().score(raw, gold, design)
        return score_answer(raw, item)

    def refusal(self, raw: str, scored: Scored, design: Mapping[str, Any], *, item: ItemData | None = None) -> str:
        if scored.valid:
            return ""
        kind = (item.prompt.get("kind") if item is not None else "") or CHOICE
        if kind == NUMBER:
            if not raw.strip():
                return Message(gettext_noop("Please type a number, then press Enter."))
            return Message(
                gettext_noop(
                    "Please type a number, for example 42 or 3.5 (“{typed}” is not one). "
                    "Your answer has not been saved yet."
                ),
                typed=raw.strip()[:40],
            )
        if kind in (SHORT_TEXT, FREE_TEXT):
            return Message(gettext_noop("Please type an answer, then press Enter."))
        return Message(gettext_noop("Please choose one of the answers."))

    def answer_is_written(self, meta: Mapping[str, Any]) -> bool | None:
        # only a free text is a person's own words; a rating, an option, a number or a short text
        # checked against accepted answers is the item's datum
        return meta.get("kind") == FREE_TEXT

    def item_category(self, item: ItemData) -> str:
        return str(item.meta.get("category", ""))

    # -- design --------------------------------------------------------------------------
    def design_errors(self, design: Mapping[str, Any]) -> dict[str, str]:
        """Besides the options' bounds: a set's name is a slug (none chosen yet is said when the
        study is built, since the default design names no set)."""
        errors = super().design_errors(design)
        name = design.get("item_set")
        if "item_set" not in errors and name:
            try:
                check_name(str(name), "item_set")
            except DatasetError:
                errors["item_set"] = f"“{name}” is not a set's name: {NAME_RULE}."
        return errors

    def item_scope(self, design: Mapping[str, Any]) -> str:
        return f"{self.item_set(design)}/" if self.item_set(design) else ""

    def item_set(self, design: Mapping[str, Any]) -> str:
        return str(design.get("item_set") or "")

    def answers_per_participant(self, design: Mapping[str, Any]) -> int | None:
        # 0: the whole set in one unit, which only the imported set can say
        size = int(design.get("unit_size") or 0)
        return size + int(design.get("attention_checks", 0)) if size else None

    def build_units(self, items: Sequence[ItemData], design: Mapping[str, Any]) -> list[list[str]]:
        """Blocks of `unit_size` items of the set's split in file order (the last may be shorter),
        or the whole set in one unit; each participant's order is drawn at display."""
        scope = self.item_scope(design)
        if not scope:
            raise ValueError(f"Name the item set to use: the NAME given when importing the file ({NAME_RULE}).")
        pool = sorted(
            (
                item
                for item in items
                if item.key.startswith(scope) and item.split == design["split"] and not item.is_attention_check
            ),
            key=lambda item: (int(item.meta.get("line", 0)), item.key),
        )
        if not pool:
            raise ValueError(
                f"no items of the set {design.get('item_set')!r} (split {design['split']!r}) are "
                "imported: import the file first (Import your own items)"
            )
        size = int(design["unit_size"]) or len(pool)
        return [[item.key for item in pool[start : start + size]] for start in range(0, len(pool), size)]

    # -- model runs (model.py) -----------------------------------------------------------
    model_module: ClassVar[Any] = model_side
    default_model_setting: ClassVar[Mapping[str, Any]] = model_side.DEFAULT_SETTING
    model_setting_options: ClassVar[tuple[DesignOption, ...]] = model_side.SETTING_OPTIONS
    model_kinds = ("causal", "seq2seq")

    # -- results (results.py) ------------------------------------------------------------
    def breakdowns(self, results_input: ResultsInput) -> Sections:
        # imported here: the agreement statistics need numpy, which listing the benchmarks should not load
        from . import results as results_side

        return results_side.breakdowns(results_input)

    def sections_type(self) -> type[Sections]:
        return CustomSections
