"""The model side of a researcher's own items.

Choice, yes_no and rating items are a ChoiceRequest: the item's model context (its `model_context`,
its `prompt_template` filled in, or the default context) and one continuation per option. The
answer is the option whose continuation has the highest total log-likelihood; every option's
log-likelihood and its option's length in characters are kept, so the length-normalised decision
(lm-evaluation-harness's acc_norm: the argmax of log-likelihood / len(choice)) is reported too.

Short_text, number and free_text items are a GenerationRequest (greedy, `max_tokens`), cut at the
first of the item's stop strings; a short text is scored by the item's metric against its accepted
answers, a number is the first number of the text within the tolerance, a free text is stored.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from parity.engine.requests import ChoiceRequest, GenerationRequest

from ..base import ItemData, ModelAnswer, ModelAsk
from ..design import DesignOption
from ..from_inspect.logs import SETTING as INSPECT_SETTING
from . import scoring
from .records import NUMBER, OPTION_KINDS, RATING, SHORT_TEXT

DEFAULT_SETTING: Mapping[str, Any] = {}
#: each item carries its own prompt, so a run has nothing to choose
SETTING_OPTIONS: tuple[DesignOption, ...] = ()


#: the setting of a run whose answers were imported from an lm-evaluation-harness samples file
IMPORTED_SETTING = "lm_eval_samples"
#: the settings of runs whose answers were imported, not asked of a model here
IMPORTED_SETTINGS = (IMPORTED_SETTING, INSPECT_SETTING)


def setting_label(setting: Mapping[str, Any]) -> str:
    imported = setting.get(IMPORTED_SETTING)
    if isinstance(imported, Mapping):
        return f"lm-evaluation-harness samples of {imported.get('task')} (filter {imported.get('filter')})"
    logged = setting.get(INSPECT_SETTING)
    if isinstance(logged, Mapping):
        return f"Inspect log of {logged.get('task')}"
    return "the items' own prompts"


def item_request(item: ItemData) -> ChoiceRequest | GenerationRequest:
    model = item.meta["model"]
    if item.meta["kind"] in OPTION_KINDS:
        return ChoiceRequest(item.key, model["context"], tuple(model["continuations"]))
    # the engine's newline rule stops no earlier than the first newline, where the cut below is made
    return GenerationRequest(
        item.key, model["context"], int(model["max_tokens"]), stop_at_newline="\n" in model["stop"]
    )


def requests(ask: ModelAsk) -> list[ChoiceRequest | GenerationRequest]:
    return [item_request(item) for item in ask.items]


def cut_at_stops(text: str, stops: Sequence[str]) -> str:
    """The text before the first occurrence of any stop string (lm-evaluation-harness's `until`)."""
    cut = min((index for stop in stops if (index := text.find(stop)) >= 0), default=len(text))
    return text[:cut]


def choice_answer(item: ItemData, result: Any) -> ModelAnswer:
    options = [str(option) for option in item.prompt["options"]]
    continuations = item.meta["model"]["continuations"]
    logliks = [score.logprob for score in result.scores]
    # the harness divides by the choice's characters (kept at import: an option is shown trimmed)
    lengths = item.meta["model"].get("lengths") or [len(option) for option in options]
    best = logliks.index(max(logliks))
    normalised = [loglik / length for loglik, length in zip(logliks, lengths)]
    best_norm = normalised.index(max(normalised))
    scored = item.meta["kind"] != RATING
    scores: dict[str, Any] = {
        "loglik": dict(zip(options, logliks)),
        "chars": dict(zip(options, lengths)),
        "greedy": dict(zip(options, (score.is_greedy for score in result.scores))),
        "answer_norm": options[best_norm],
    }
    if scored:
        scores["correct_norm"] = options[best_norm] == item.gold
    return ModelAnswer(
        answer=options[best],
        raw_answer=continuations[best],
        valid=True,
        correct=scored and options[best] == item.gold,
        scores=scores,
        truncated_tokens=result.truncated_tokens,
    )


def generation_answer(item: ItemData, result: Any) -> ModelAnswer:
    text = cut_at_stops(result.raw_text, item.meta["model"]["stop"]).strip()
    kind = item.meta["kind"]
    scores: dict[str, Any] = {"stop_reason": result.stop_reason, "n_tokens": result.n_tokens}
    if kind == NUMBER:
        number = scoring.first_number(text)
        answer = "" if number is None else scoring.format_number(number)
        value = (
            scoring.best_score(scoring.NUMERIC, answer, item.meta["answers"], float(item.meta.get("tolerance", 0)))
            if answer
            else 0.0
        )
        return ModelAnswer(
            answer=answer,
            raw_answer=result.raw_text,
            valid=bool(answer),
            correct=scoring.is_correct(scoring.NUMERIC, value),
            scores={**scores, "score": value},
            truncated_tokens=result.truncated_tokens,
        )
    if kind == SHORT_TEXT:
        metric, options = str(item.meta["metric"]), item.meta.get("metric_options", ())
        if metric == scoring.EXACT_MATCH:  # the harness compares the text as generated, cut at the stops
            text = cut_at_stops(result.raw_text, item.meta["model"]["stop"])
            text = text.strip() if scoring.STRIP in options else text
        value = scoring.best_score(
            metric,
            text,
            item.meta["answers"],
            float(item.meta.get("tolerance", 0)),
            options,
            scoring.inspect_scorer(item.meta),
        )
        return ModelAnswer(
            answer=text,
            raw_answer=result.raw_text,
            valid=bool(text),
            correct=scoring.is_correct(metric, value),
            scores={**scores, "score": value, "metric": metric},
            truncated_tokens=result.truncated_tokens,
        )
    return ModelAnswer(
        answer=text,
        raw_answer=result.raw_text,
        valid=bool(text),
        correct=False,
        scores=scores,
        truncated_tokens=result.truncated_tokens,
    )


def answers(
    items: Sequence[ItemData],
    setting: Mapping[str, Any],
    results: Mapping[str, Any],
    *,
    assets: Mapping[str, Any] | None = None,
    kind: str = "causal",
) -> dict[str, ModelAnswer]:
    return {
        item.key: (choice_answer if item.meta["kind"] in OPTION_KINDS else generation_answer)(item, results[item.key])
        for item in items
    }
