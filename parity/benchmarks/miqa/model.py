"""The model side of MiQA (Comsa et al., Section 4 and Appendix A).

Language models: each option is a continuation of the question (wordings 1-4 of Appendix A, or the
two baselines "empty" and "pick"), after 0, 1 or 5 solved questions drawn at random per item
(seeded). Every question is presented twice, the options' order swapped, and each presentation is
scored on its own (Appendix A; Table 3's accuracies are over 2 x 150 presentations per direction):
the likelier option is that presentation's answer, and a tie is no answer (wrong). The decision
on the two log-likelihoods averaged is kept beside each answer. NLI cross-encoders: each option is
scored 1 - P(contradiction) with the premise. With the wording "generative" (Section 5.2) the model
writes an answer to each "implies" question's generative form, for people to grade.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from parity.engine.requests import ChoiceRequest, GenerationRequest

from ..base import ChoicePrompt, ItemData, ModelAnswer, ModelAsk, PairRequest
from ..design import DesignOption
from ..rows import seeded_rng
from .prompts import OPTION_KEYS, choice_prompt, generative_prompt, nli_pairs

K_SHOTS = (0, 1, 5)
CHOICE_WORDINGS = ("1", "2", "3", "4", "empty", "pick")
#: Section 5.2: the model answers "M_p". Could that imply that "L_c"? in its own words; people grade it
GENERATIVE = "generative"
WORDINGS = (*CHOICE_WORDINGS, GENERATIVE)
GENERATIVE_MAX_TOKENS = 64
ORDERS = (("a", "b"), ("b", "a"))
DEFAULT_SETTING: Mapping[str, Any] = {"wording": "3", "k": 0, "seed": 0}
SETTING_OPTIONS: tuple[DesignOption, ...] = (
    DesignOption(
        "wording",
        "Wording",
        kind="choice",
        choices=(
            *((wording, f"wording {wording} (Appendix A)") for wording in ("1", "2", "3", "4")),
            ("empty", "baseline: no question"),
            ("pick", "baseline: pick an option"),
            (GENERATIVE, "generative answers, graded by people (Section 5.2)"),
        ),
        help="how each question is put to the model",
    ),
    DesignOption(
        "k", "Solved examples (k)", minimum=0, help="shown before each question; the paper: 0, 1 or 5 (generative: 0)"
    ),
    DesignOption("seed", "Seed", minimum=0, help="draws the solved examples (the same seed, the same draw)"),
)


def select_shots(item: ItemData, pool: Sequence[ItemData], k: int, seed: int = 0) -> list[ItemData]:
    """k solved questions of the same direction, drawn at random per item (seeded); never the item's
    own row, whose other question shares its sentences."""
    if k == 0:
        return []
    candidates = sorted(
        (
            other
            for other in pool
            if other.prompt["direction"] == item.prompt["direction"]
            and other.meta["row"] != item.meta["row"]
            and not other.is_attention_check
        ),
        key=lambda other: other.key,
    )
    if k > len(candidates):
        raise ValueError(f"{k} shots asked for, only {len(candidates)} questions available")
    return seeded_rng("miqa", "shots", seed, item.key, k).sample(candidates, k)


def both_orders(
    item: ItemData, pool: Sequence[ItemData] = (), k: int = 0, wording: int | str = 3, seed: int = 0
) -> list[tuple[tuple[str, str], ChoicePrompt]]:
    """The item presented twice, options swapped the second time (the paper averages the two)."""
    shots = select_shots(item, pool, k, seed)
    return [(order, choice_prompt(item.prompt, wording, order, shots, seed)) for order in (("a", "b"), ("b", "a"))]


def check_setting(setting: Mapping[str, Any]) -> None:
    if str(setting["wording"]) not in WORDINGS:
        raise ValueError(f"wording must be one of {', '.join(WORDINGS)}, not {setting['wording']!r}")
    if setting["k"] < 0:
        raise ValueError(f"k must be 0 or more, not {setting['k']}")
    if str(setting["wording"]) == GENERATIVE and setting["k"] != 0:
        raise ValueError("generative runs are 0-shot (the paper's few-shot prefixes are answers its authors graded)")


def sweep_settings() -> list[dict[str, Any]]:
    """Table 3's grid: wordings 1-4 and the two baselines, each at k in {0, 1, 5} (18 runs). The
    paper reports each model's best 0-shot wording at 1 and 5 shots; running every wording at
    every k lets the results choose it per model without a second round of runs."""
    return [{"wording": wording, "k": k, "seed": 0} for wording in CHOICE_WORDINGS for k in K_SHOTS]


def setting_label(setting: Mapping[str, Any]) -> str:
    wording = str(setting["wording"])
    if wording == GENERATIVE:
        return "generative answers, k=0"
    name = f"baseline '{wording}'" if wording in ("empty", "pick") else f"wording {wording}"
    return f"{name}, k={setting['k']}"


def _order_key(item: ItemData, order: Sequence[str]) -> str:
    return f"{item.key}|{''.join(order)}"


def requests(ask: ModelAsk) -> list[ChoiceRequest | PairRequest | GenerationRequest]:
    items, setting, pool, kind = ask.items, ask.setting, ask.pool, ask.kind
    found: list[ChoiceRequest | PairRequest | GenerationRequest] = []
    if str(setting["wording"]) == GENERATIVE:
        if kind == "nli":
            raise ValueError("an NLI cross-encoder cannot write answers: use a causal or seq2seq model")
        return [
            GenerationRequest(
                f"{item.key}|generative", generative_prompt(item.prompt), GENERATIVE_MAX_TOKENS, stop_at_newline=True
            )
            for item in items
            if item.prompt.get("direction") == "implies"
        ]
    for item in items:
        if kind == "nli":
            for option, (premise, hypothesis) in sorted(nli_pairs(item.prompt).items()):
                found.append(PairRequest(f"{item.key}|nli|{option}", premise, hypothesis))
            continue
        presented = both_orders(item, pool, int(setting["k"]), str(setting["wording"]), int(setting.get("seed", 0)))
        for order, prompt in presented:
            found.append(
                ChoiceRequest(
                    _order_key(item, order), prompt.context, tuple(prompt.continuations[key] for key in OPTION_KEYS)
                )
            )
    return found


def _pick(values: Mapping[str, float]) -> str:
    """The higher-scored option, or "" on a tie (no decision, counted wrong)."""
    if values["a"] == values["b"]:
        return ""
    return "b" if values["b"] > values["a"] else "a"


def _decision(pick: str, gold: str, scores: Mapping[str, Any], truncated: int, variant: str = "") -> ModelAnswer:
    return ModelAnswer(
        answer=pick,
        raw_answer=pick or "tie",
        valid=bool(pick),
        correct=pick == gold,
        scores=scores,
        truncated_tokens=truncated,
        variant=variant,
    )


def generative_answers(
    items: Sequence[ItemData], results: Mapping[str, Any]
) -> dict[str, ModelAnswer | list[ModelAnswer]]:
    """The written answer to each "implies" question's generative form, ungraded until people
    rate it (`modelrun_rating_study`); the "implied-by" questions have no generative form."""
    found: dict[str, ModelAnswer | list[ModelAnswer]] = {}
    for item in items:
        result = results.get(f"{item.key}|generative")
        if result is None:
            found[item.key] = []
            continue
        text = result.text.strip()
        found[item.key] = [
            ModelAnswer(
                answer=text,
                raw_answer=result.raw_text,
                valid=bool(text),
                correct=False,
                scores={"ungraded": True},
                variant=GENERATIVE,
            )
        ]
    return found


def answers(
    items: Sequence[ItemData],
    setting: Mapping[str, Any],
    results: Mapping[str, Any],
    *,
    assets: Mapping[str, Any] | None = None,
    kind: str = "causal",
) -> dict[str, ModelAnswer | list[ModelAnswer]]:
    """Language models: one answer per presentation (variant "ab" or "ba"), so accuracy is over
    2 x questions as in the paper's Table 3; each carries the averaged-likelihood decision of both
    presentations ("averaged_pick", "averaged_correct") as an extra score. NLI: one answer. The
    generative wording: the written answers (`generative_answers`)."""
    if str(setting.get("wording")) == GENERATIVE:
        return generative_answers(items, results)
    found: dict[str, ModelAnswer | list[ModelAnswer]] = {}
    for item in items:
        if kind == "nli":
            nli = {option: results[f"{item.key}|nli|{option}"] for option in ("a", "b")}
            values = {option: score.score for option, score in nli.items()}
            found[item.key] = _decision(
                _pick(values),
                item.gold,
                {
                    "not_contradiction": values,
                    "probabilities": {option: dict(score.probabilities) for option, score in nli.items()},
                },
                0,
            )
            continue
        per_order: dict[str, dict[str, float]] = {}
        truncated: dict[str, int] = {}
        for order in ORDERS:
            result = results[_order_key(item, order)]
            per_order["".join(order)] = {"a": result.scores[0].logprob, "b": result.scores[1].logprob}
            truncated["".join(order)] = result.truncated_tokens
        mean = {option: sum(order[option] for order in per_order.values()) / len(per_order) for option in ("a", "b")}
        averaged = _pick(mean)
        found[item.key] = [
            _decision(
                _pick(logprobs),
                item.gold,
                {
                    "logprobs": logprobs,
                    "mean_logprob": mean,
                    "averaged_pick": averaged,
                    "averaged_correct": averaged == item.gold,
                },
                truncated[variant],
                variant,
            )
            for variant, logprobs in per_order.items()
        ]
    return found
