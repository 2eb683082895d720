"""The AmbiBench benchmark definition: generated items, the participant's page, units per episode."""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, ClassVar

from ...messages import Message, gettext_noop
from ..base import Asset, Benchmark, ChoicePrompt, DemoSetup, ImportBundle, ItemData, ResultsInput, Scored, Screen
from ..consent import RECORDED_ON_THE_PAGE
from ..design import DesignOption
from ..sections import Headlines, Sections
from ..timing import AnswerTime
from . import model
from .generator import (
    EPISODE_LENGTH,
    INSTRUCTION_LEVELS,
    disambiguation_items,
    episode_items,
    generate_disambiguation,
    generate_episodes,
)
from .prompts import (
    ANSWER_PREFIX,
    FORMATS,
    QUERY_PREFIX,
    EpisodeText,
    disambiguation_prompt,
    episode_text,
    order_episode,
)
from .wordlists import CONSTRUCTION_OF, FEATURE_TITLES, FEATURE_VALUES, FEATURES, word_lists

CONSENT = (
    "You are invited to take part in a research study on how people learn simple patterns from examples. "
    "You will read short sentences and type a single letter for each. "
    "Taking part is voluntary; you may stop at any time by returning the study on Prolific. "
    "Your answers are stored under a pseudonym and used only for research; your Prolific ID is kept "
    "only to pay you and is never published." + RECORDED_ON_THE_PAGE
)
# Appendix F: the three orienting instructions participants saw before the task.
ORIENTING_INSTRUCTIONS = (
    "Continue the pattern in the following screens to the best of your ability, using the provided "
    "instructions and examples given.",
    "Each time you make a prediction, the next screen will show the correct answer for that example "
    "(not necessarily your previous answer).",
    "The pattern may not be obvious at first but may become more clear over time. Note: some information "
    "in the instructions may be [intentionally withheld] (denoted by brackets).",
)
INSTRUCTIONS = "\n".join(f"{number}) {text}" for number, text in enumerate(ORIENTING_INSTRUCTIONS, start=1)) + (
    "\nType your answer (X or Y) in the box and press Enter to continue. You cannot go back to change an answer."
)
UNIT_FORMATS = FORMATS + ("both",)
#: X or Y in either case, with spaces or punctuation around it ("x", " Y ", "X.", "'x'", ">X")
TYPED_LABEL = re.compile(r"[\W_]*([xy])[\W_]*", re.IGNORECASE)


def _positive(options: Mapping[str, Any], name: str, default: int) -> int:
    value = options.get(name, default)
    try:
        number = int(value)
    except (TypeError, ValueError):
        raise ValueError(f"option {name!r} must be a whole number, not {value!r}") from None
    if number < 1:
        raise ValueError(f"option {name!r} must be at least 1, not {number}")
    return number


class AmbiBench(Benchmark):
    name = "ambibench"
    title = "AmbiBench: task ambiguity (Tamkin et al.)"
    item_template = "participation/partials/_item_ambibench_episode.html"
    #: Section 4.2: the instruction, both labelled examples and the query on one screen
    instruction_template = "participation/partials/_item_ambibench_instruction.html"
    #: people type X or Y; anything else is asked again and nothing is stored (see `refusal`)
    free_text_answers = False
    shows_history = True
    default_design: ClassVar[Mapping[str, Any]] = {
        "split": "episode",
        "per_feature": 16,
        "per_unit": 1,
        "attention_checks": 0,
        "exclude_at": 0,
        "format": "arrow",
    }
    design_options = (
        DesignOption(
            "split",
            "What people see",
            kind="choice",
            choices=(
                ("episode", "20-sentence episodes (Section 4.3)"),
                ("instruction", "one instruction with two labelled examples (Section 4.2)"),
            ),
        ),
        DesignOption(
            "per_feature",
            "Episodes per salient feature",
            minimum=1,
            help="one unit each, balanced over the six features (the paper: 16, 96 in all)",
        ),
        DesignOption("per_unit", "Participants per episode", minimum=1),
        DesignOption(
            "format",
            "Format",
            kind="choice",
            choices=(("arrow", "arrow (sentence -> X)"), ("qa", "Q/A"), ("both", "both, alternating")),
        ),
    )
    default_consent = CONSENT
    default_instructions = INSTRUCTIONS
    category_field = "salient_feature"
    #: generated from seed 0 (no files); the demo study is the paper's 96 episodes, 16 per feature
    demo = DemoSetup(
        study="AmbiBench demo",
        split="episode",
        imported="Generated AmbiBench (seed 0): {created} items",
        reads_files=False,
        options={"seed": 0},
    )

    # -- data in -------------------------------------------------------------------------
    def load(self, source: Path, options: Mapping[str, Any] | None = None) -> ImportBundle:
        """Generated, not read: `source` is ignored; options seed (0), episodes (720), instruction_prompts (720)."""
        options = options or {}
        seed = int(options.get("seed", 0))
        episodes = _positive(options, "episodes", 720)
        prompts = _positive(options, "instruction_prompts", 720)
        items = episode_items(generate_episodes(seed, episodes)) + disambiguation_items(
            generate_disambiguation(seed, prompts)
        )
        features = {
            feature: {
                "construction": CONSTRUCTION_OF[feature],
                "values": list(FEATURE_VALUES[feature]),
                "title": FEATURE_TITLES[feature],
            }
            for feature in FEATURES
        }
        generator = {
            "seed": seed,
            "episodes": episodes,
            "instruction_prompts": prompts,
            "episode_length": EPISODE_LENGTH,
        }
        return ImportBundle(
            items=items,
            assets=[Asset("generator", generator), Asset("word_lists", word_lists()), Asset("features", features)],
        )

    # -- the human side ------------------------------------------------------------------
    def present(self, item_prompt: Mapping[str, Any], design: Mapping[str, Any]) -> dict[str, Any]:
        fmt = item_prompt["format"]
        shown: dict[str, Any] = {
            "instruction": item_prompt["instruction"],
            "format": fmt,
            "query_prefix": QUERY_PREFIX[fmt],
            "answer_prefix": ANSWER_PREFIX[fmt],
        }
        if "examples" in item_prompt:  # Section 4.2: both labelled examples and the query at once
            shown["examples"] = [{"sentence": sentence, "label": label} for sentence, label in item_prompt["examples"]]
            shown["sentence"] = item_prompt["query"]
        else:
            shown.update(
                sentence=item_prompt["sentence"],
                position=item_prompt["position"],
                episode=item_prompt["episode"],
                length=EPISODE_LENGTH,
            )
        return shown

    def screen(
        self, item_key: str, item_prompt: Mapping[str, Any], design: Mapping[str, Any], *, viewer: str
    ) -> Screen:
        template = self.instruction_template if "examples" in item_prompt else self.item_template
        return Screen(template=template, shown=self.present(item_prompt, design))

    def history(self, answered: Sequence[Mapping[str, Any]], current_prompt: Mapping[str, Any]) -> list[dict[str, Any]]:
        """Earlier sentences of the same episode, each with its correct label (which replaces the answer)."""
        episode, position = current_prompt.get("episode"), current_prompt.get("position")
        if episode is None or position is None:
            return []
        earlier = [
            entry
            for entry in answered
            if entry["prompt"].get("episode") == episode and int(entry["prompt"]["position"]) < int(position)
        ]
        earlier.sort(key=lambda entry: int(entry["prompt"]["position"]))
        fmt = current_prompt["format"]
        return [
            {
                "position": entry["prompt"]["position"],
                "sentence": entry["prompt"]["sentence"],
                "label": entry["gold"],
                "raw_answer": entry.get("raw_answer", ""),
                "correct": entry.get("correct"),
                "query_prefix": QUERY_PREFIX[fmt],
                "answer_prefix": ANSWER_PREFIX[fmt],
            }
            for entry in earlier
        ]

    def parse_answer(self, raw: str) -> str | None:
        """The label typed, in either case, with the spaces and punctuation around it dropped: the
        authors read a label token the same way (metric_wrangler.py strips spaces and quotes)."""
        match = TYPED_LABEL.fullmatch(raw)
        return match.group(1).upper() if match else None

    def refusal(self, raw: str, scored: Scored, design: Mapping[str, Any], *, item: ItemData | None = None) -> str:
        """Anything but X or Y ("maybe", "xy", "z") is a slip of the keyboard, not an answer: the
        participant is asked again and nothing is stored, so every stored answer is a label. (A
        model's output that is neither label stays an invalid, wrong answer, as the authors score it.)"""
        if scored.valid:
            return ""
        typed = raw.strip()
        if not typed:
            return Message(gettext_noop("Please type X or Y, then press Enter."))
        return Message(
            gettext_noop(
                "Please type X or Y (“{typed}” is neither), then press Enter. Your answer has not been saved yet."
            ),
            typed=typed[:40],
        )

    # -- design --------------------------------------------------------------------------
    def unit_category(self, unit_items: Sequence[ItemData]) -> str:
        features: set[Any] = {item.meta.get("salient_feature") for item in unit_items if not item.is_attention_check}
        features.discard(None)
        if len(features) > 1:
            raise ValueError(f"a unit mixes salient features: {', '.join(sorted(features))}")
        return features.pop() if features else ""

    #: Tamkin et al. (Section 4.3): participants "mostly spent between 4 and 8 minutes" on a
    #: 20-sentence episode, consent and instructions included; 8 minutes less 2 for those is 18 s
    #: a sentence
    answer_time = AnswerTime(
        18, "Tamkin et al.: 4-8 minutes for a 20-sentence episode; 8 minutes less 2 for consent and instructions"
    )
    #: the instruction split shows the instruction and three sentences on one screen, as long as
    #: three of an episode's sentences
    prompt_time = AnswerTime(
        60, "Tamkin et al.'s 18 s a sentence of an episode, for one screen of an instruction and three sentences"
    )

    def answers_per_participant(self, design: Mapping[str, Any]) -> int | None:
        per_unit = EPISODE_LENGTH if design.get("split", "episode") == "episode" else 1
        return per_unit + int(design.get("attention_checks", 0))

    def answer_time_for(self, design: Mapping[str, Any]) -> AnswerTime:
        return self.answer_time if design.get("split", "episode") == "episode" else self.prompt_time

    def build_units(self, items: Sequence[ItemData], design: Mapping[str, Any]) -> list[list[str]]:
        """Episode split: one unit per episode (its keys in position order), `per_feature` episodes per
        salient feature in `format` ("arrow", "qa" or "both"), interleaved over features so that
        units handed out in order stay balanced. Instruction split: one prompt per unit, of the
        design's `instruction` level ("uninform" by default)."""
        fmt = design.get("format", "arrow")
        if fmt not in UNIT_FORMATS:
            raise ValueError(f"format must be one of {', '.join(UNIT_FORMATS)}, not {fmt!r}")
        per_feature = int(design["per_feature"])
        features = list(design.get("features") or FEATURES)
        unknown = [feature for feature in features if feature not in FEATURES]
        if unknown:
            raise ValueError(f"unknown salient feature(s) {', '.join(unknown)}; known: {', '.join(FEATURES)}")
        split = design.get("split", "episode")
        if split == "episode":
            pools = self._episode_pools(items)
        elif split == "instruction":
            level = design.get("instruction", "uninform")
            if level not in INSTRUCTION_LEVELS:
                raise ValueError(f"instruction must be one of {', '.join(INSTRUCTION_LEVELS)}, not {level!r}")
            pools = self._instruction_pools(items, level)
        else:
            raise ValueError(f"AmbiBench has the splits 'episode' and 'instruction', not {split!r}")
        chosen = {feature: self._pick(pools, feature, fmt, per_feature, split) for feature in features}
        return [chosen[feature][index] for index in range(per_feature) for feature in features]

    @staticmethod
    def _episode_pools(items: Sequence[ItemData]) -> dict[tuple[str, str], list[list[str]]]:
        episodes: dict[str, list[ItemData]] = defaultdict(list)
        for item in items:
            if item.split == "episode" and not item.is_attention_check:
                episodes[item.prompt["episode"]].append(item)
        pools: dict[tuple[str, str], list[list[str]]] = defaultdict(list)
        for episode in sorted(episodes):
            ordered = order_episode(episodes[episode])
            meta = ordered[0].meta
            pools[(meta["salient_feature"], meta["format"])].append([item.key for item in ordered])
        return pools

    @staticmethod
    def _instruction_pools(items: Sequence[ItemData], level: str) -> dict[tuple[str, str], list[list[str]]]:
        pools: dict[tuple[str, str], list[list[str]]] = defaultdict(list)
        for item in sorted(items, key=lambda item: item.key):
            if item.split == "instruction" and item.meta.get("instruction_level") == level:
                pools[(item.meta["salient_feature"], item.meta["format"])].append([item.key])
        return pools

    @staticmethod
    def _pick(
        pools: Mapping[tuple[str, str], list[list[str]]], feature: str, fmt: str, count: int, split: str
    ) -> list[list[str]]:
        if fmt != "both":
            pool = pools.get((feature, fmt), [])
            if len(pool) < count:
                raise ValueError(
                    f"{count} {fmt} {split} units with salient feature {feature!r} are needed; "
                    f"only {len(pool)} are imported"
                )
            return pool[:count]
        arrow, qa = pools.get((feature, "arrow"), []), pools.get((feature, "qa"), [])
        need_arrow, need_qa = (count + 1) // 2, count // 2
        if len(arrow) < need_arrow or len(qa) < need_qa:
            raise ValueError(
                f"{need_arrow} arrow and {need_qa} qa {split} units with salient feature {feature!r} "
                f"are needed; {len(arrow)} and {len(qa)} are imported"
            )
        mixed = []
        for index in range(need_arrow):
            mixed.append(arrow[index])
            if index < need_qa:
                mixed.append(qa[index])
        return mixed

    # -- the model side ------------------------------------------------------------------
    def episode_text(self, items: Sequence[ItemData]) -> EpisodeText:
        return episode_text(items)

    def choice_prompt(self, item_prompt: Mapping[str, Any]) -> ChoicePrompt:
        return disambiguation_prompt(item_prompt)

    # -- model runs (model.py) -----------------------------------------------------------------
    model_module: ClassVar[Any] = model
    default_model_setting: ClassVar[Mapping[str, Any]] = model.DEFAULT_SETTING
    model_setting_options: ClassVar[tuple[DesignOption, ...]] = model.SETTING_OPTIONS
    model_kinds = ("causal",)

    def model_groups(self, items: Sequence[ItemData], setting: Mapping[str, Any]) -> list[list[str]]:
        return model.groups(items)

    # -- results (results.py) --------------------------------------------------------------
    def breakdowns(self, results_input: ResultsInput) -> Sections:
        # imported here: the position curves need numpy, which a command that only lists the
        # benchmarks (every `manage.py` command, through the models' choices) should not load
        from . import results as results_side

        return results_side.breakdowns(results_input)

    def sections_type(self) -> type[Sections]:
        from .sections import AmbiBenchSections

        return AmbiBenchSections

    def headline_results(self, sections: Sections) -> Headlines:
        from . import results as results_side
        from .sections import AmbiBenchSections

        return results_side.oracle_points(sections) if isinstance(sections, AmbiBenchSections) else Headlines()

    def headlines_type(self) -> type[Headlines]:
        from .sections import AmbiBenchHeadlines

        return AmbiBenchHeadlines
