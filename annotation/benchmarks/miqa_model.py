"""The model side of MiQA (Comsa et al., Section 4 and Appendix A).

Language models: each option is a continuation of the question (wordings 1-4 of Appendix A, or the
two baselines "empty" and "pick"), after 0, 1 or 5 solved questions drawn at random per item
(seeded). Every question is presented twice, the options' order swapped; the two log-likelihoods
of each option are averaged and the likelier option is the answer (each order's own pick is kept
in the scores). NLI cross-encoders: each option is scored 1 - P(contradiction) with the premise.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from modelruns.engine.requests import ChoiceRequest

from .base import ItemData, ModelAnswer, PairRequest

K_SHOTS = (0, 1, 5)
WORDINGS = ("1", "2", "3", "4", "empty", "pick")
ORDERS = (("a", "b"), ("b", "a"))
DEFAULT_SETTING: Mapping[str, Any] = {"wording": "3", "k": 0, "seed": 0}


def check_setting(setting: Mapping[str, Any]) -> None:
    if str(setting["wording"]) not in WORDINGS:
        raise ValueError(f"wording must be one of {', '.join(WORDINGS)}, not {setting['wording']!r}")
    if setting["k"] < 0:
        raise ValueError(f"k must be 0 or more, not {setting['k']}")


def sweep_settings() -> list[dict[str, Any]]:
    """Wordings 1-4 x k in {0, 1, 5}, and the two baselines (no question to answer, so 0-shot)."""
    grid = [{"wording": wording, "k": k, "seed": 0} for wording in WORDINGS[:4] for k in K_SHOTS]
    return grid + [{"wording": baseline, "k": 0, "seed": 0} for baseline in ("empty", "pick")]


def setting_label(setting: Mapping[str, Any]) -> str:
    wording = str(setting["wording"])
    name = f"baseline '{wording}'" if wording in ("empty", "pick") else f"wording {wording}"
    return f"{name}, k={setting['k']}"


def _order_key(item: ItemData, order: Sequence[str]) -> str:
    return f"{item.key}|{''.join(order)}"


def requests(items: Sequence[ItemData], setting: Mapping[str, Any], pool: Sequence[ItemData],
             kind: str) -> list[ChoiceRequest | PairRequest]:
    from . import miqa  # miqa imports this module

    found: list[ChoiceRequest | PairRequest] = []
    for item in items:
        if kind == "nli":
            for option, (premise, hypothesis) in sorted(miqa.nli_pairs(item.prompt).items()):
                found.append(PairRequest(f"{item.key}|nli|{option}", premise, hypothesis))
            continue
        presented = miqa.both_orders(item, pool, int(setting["k"]), str(setting["wording"]), int(setting.get("seed", 0)))
        for order, prompt in presented:
            found.append(ChoiceRequest(_order_key(item, order), prompt.context,
                                       tuple(prompt.continuations[key] for key in miqa.OPTION_KEYS)))
    return found


def _pick(values: Mapping[str, float]) -> str:
    """The higher-scored option; a tie goes to "a"."""
    return "b" if values["b"] > values["a"] else "a"


def answers(items: Sequence[ItemData], results: Mapping[str, Any], kind: str) -> dict[str, ModelAnswer]:
    found: dict[str, ModelAnswer] = {}
    for item in items:
        if kind == "nli":
            nli = {option: results[f"{item.key}|nli|{option}"] for option in ("a", "b")}
            values = {option: score.score for option, score in nli.items()}
            answer = _pick(values)
            scores: dict[str, Any] = {"not_contradiction": values,
                                      "probabilities": {option: dict(score.probabilities) for option, score in nli.items()}}
            truncated = 0
        else:
            per_order = {}
            truncated = 0
            for order in ORDERS:
                result = results[_order_key(item, order)]
                logprobs = {"a": result.scores[0].logprob, "b": result.scores[1].logprob}
                per_order["".join(order)] = {**logprobs, "pick": _pick(logprobs)}
                truncated = max(truncated, result.truncated_tokens)
            values = {option: sum(order[option] for order in per_order.values()) / len(per_order) for option in ("a", "b")}
            answer = _pick(values)
            scores = {"mean_logprob": values, "orders": per_order,
                      "order_accuracy": sum(order["pick"] == item.gold for order in per_order.values()) / len(per_order)}
        found[item.key] = ModelAnswer(answer=answer, raw_answer=answer, valid=True, correct=answer == item.gold,
                                      scores=scores, truncated_tokens=truncated)
    return found
