"""AmbiBench (Tamkin et al., "Task ambiguity in humans and language models").

No data files: sentences are generated from the paper's templates and word lists (Appendix G).
Items are the positions of 20-example episodes (Section 4.3; split `episode`, key
`ep-0001-01`) and the three-example prompts of Section 4.2 (split `instruction`, key
`dis-inform-0001` / `dis-uninform-0001`). The finetuning data (Section 4.4) and the verbalisation
probe (Appendix A) are functions.
"""

from __future__ import annotations

from .benchmark import AmbiBench
from .finetune import FinetuneRecord, finetune_eval_episodes, finetune_records, write_jsonl
from .generator import (
    DisambiguationPrompt,
    Episode,
    Example,
    disambiguation_items,
    episode_items,
    generate_disambiguation,
    generate_episodes,
    label_for,
)
from .prompts import (
    FORMATS,
    VERBALISATION_CATEGORIES,
    EpisodeText,
    candidates,
    disambiguation_prompt,
    episode_text,
    labelled_text,
    verbalisation_prompt,
)
from .wordlists import CONSTRUCTIONS, FEATURE_VALUES, FEATURES, UNINFORMATIVE, informative_instruction

__all__ = [
    "AmbiBench",
    "CONSTRUCTIONS",
    "DisambiguationPrompt",
    "Episode",
    "EpisodeText",
    "Example",
    "FEATURES",
    "FEATURE_VALUES",
    "FORMATS",
    "FinetuneRecord",
    "UNINFORMATIVE",
    "VERBALISATION_CATEGORIES",
    "candidates",
    "disambiguation_items",
    "disambiguation_prompt",
    "episode_items",
    "episode_text",
    "finetune_eval_episodes",
    "finetune_records",
    "generate_disambiguation",
    "generate_episodes",
    "informative_instruction",
    "label_for",
    "labelled_text",
    "verbalisation_prompt",
    "write_jsonl",
]
