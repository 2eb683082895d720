"""AmbiBench's results beside overall accuracy (Tamkin et al., Section 4.3): accuracy by example
position, per salient feature and per feature and format, with bootstrap CIs over episodes, and
the Bayesian oracle over the same episodes."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import replace
from typing import Any

from ..base import ResultsInput
from .oracle import OracleEpisode, oracle_curve
from .positions import PositionAnswer, position_curve, position_curves
from .sections import (
    AmbiBenchHeadlines,
    AmbiBenchSections,
    ByPosition,
    Curves,
    FeatureCurves,
    ModelCurves,
    ModelRepeats,
    OraclePoint,
    Repeats,
    RepeatSplit,
)


def is_position_item(meta: Any) -> bool:
    return "episode" in meta and "position" in meta


def _position_answer(episode: str, meta: Any, correct: bool, valid: bool) -> PositionAnswer:
    return PositionAnswer(
        episode=episode,
        position=int(meta["position"]),
        score=1.0 if correct else 0.0,
        salient_feature=meta.get("salient_feature"),
        format=meta.get("format"),
        valid=valid,
    )


def _curves(answers: list[PositionAnswer], *, n_boot: int, seed: int) -> Curves:
    if not answers:
        return Curves(overall=None, by_feature=[], by_feature_format=[])
    return Curves(
        overall=position_curve(answers, n_boot=n_boot, seed=seed),
        by_feature=position_curves(answers, by=("salient_feature",), n_boot=n_boot, seed=seed),
        by_feature_format=position_curves(answers, n_boot=n_boot, seed=seed),
    )


def _oracle_episodes(items: Iterable[Any]) -> dict[str | None, list[OracleEpisode]]:
    episodes: dict[str, list[Any]] = defaultdict(list)
    for item in items:
        if is_position_item(item.meta) and isinstance(item.meta.get("features"), dict) and item.gold:
            episodes[str(item.meta["episode"])].append(item)
    by_feature: dict[str | None, list[OracleEpisode]] = defaultdict(list)
    for episode in sorted(episodes):
        ordered = sorted(episodes[episode], key=lambda item: int(item.meta["position"]))
        features = tuple(ordered[0].meta["features"])
        oracle = OracleEpisode(features=features, examples=[(i.meta["features"], i.gold) for i in ordered])
        by_feature[None].append(oracle)
        by_feature[ordered[0].meta.get("salient_feature")].append(oracle)
    return by_feature


def _oracle(results: ResultsInput) -> FeatureCurves:
    items = [item for key, item in results.items.items() if results.item_passes(key)]
    try:
        groups = _oracle_episodes(items)
        overall = oracle_curve(groups.get(None, [])) if groups.get(None) else None
        features = [
            replace(oracle_curve(episodes), group={"salient_feature": feature})
            for feature, episodes in sorted(groups.items(), key=lambda kv: str(kv[0]))
            if feature is not None
        ]
    except ValueError:
        # episodes outside the oracle's task family (not two binary features): no oracle
        return FeatureCurves(overall=None, by_feature=[])
    return FeatureCurves(overall=overall, by_feature=features)


def by_position(results: ResultsInput) -> ByPosition:
    # For humans one episode is one participant's run through it.
    n_boot, seed, items = results.n_boot, results.seed, results.items
    human_answers = [
        _position_answer(f"{h.annotator}/{h.meta['episode']}", h.meta, h.correct, h.valid)
        for h in results.humans
        if is_position_item(h.meta)
    ]
    models = []
    for run in results.runs:
        answers = [
            _position_answer(
                f"{items[m.item_key].meta['episode']}/{m.variant}", items[m.item_key].meta, bool(m.correct), m.valid
            )
            for m in results.rows_by_run[run.id]
            if is_position_item(items[m.item_key].meta)
        ]
        if answers:
            models.append(ModelCurves(run=run.id, label=run.label, curves=_curves(answers, n_boot=n_boot, seed=seed)))
    return ByPosition(humans=_curves(human_answers, n_boot=n_boot, seed=seed), models=models, oracle=_oracle(results))


def _repeat_split(answers: list[tuple[bool, bool]]) -> RepeatSplit:
    """(correct, on a repeated sentence) pairs: how many, and accuracy with and without the repeats."""

    def accuracy(scores: list[bool]) -> float | None:
        return sum(scores) / len(scores) if scores else None

    fresh = [correct for correct, repeat in answers if not repeat]
    repeated = [correct for correct, repeat in answers if repeat]
    return RepeatSplit(
        n_answers=len(answers),
        n_repeats=len(repeated),
        accuracy=accuracy(fresh + repeated),
        accuracy_excluding_repeats=accuracy(fresh),
        accuracy_on_repeats=accuracy(repeated),
    )


def repeats(results: ResultsInput) -> Repeats | None:
    """Answers to a sentence that came earlier in its episode, whose label is then on the screen
    (and in a model's prompt): counted apart, with accuracy excluding them. Items generated before
    the `repeat_of` flag carry none, and then there is no section."""
    items = results.items
    flagged = [key for key, item in items.items() if is_position_item(item.meta) and "repeat_of" in item.meta]
    if not flagged:
        return None
    humans = [(h.correct, h.meta.get("repeat_of") is not None) for h in results.humans if is_position_item(h.meta)]
    models = []
    for run in results.runs:
        answers = [
            (bool(m.correct), items[m.item_key].meta.get("repeat_of") is not None)
            for m in results.rows_by_run[run.id]
            if is_position_item(items[m.item_key].meta)
        ]
        if answers:
            models.append(ModelRepeats(run=run.id, label=run.label, split=_repeat_split(answers)))
    return Repeats(humans=_repeat_split(humans), models=models)


def breakdowns(results: ResultsInput) -> AmbiBenchSections:
    if any(is_position_item(item.meta) for item in results.items.values()):
        return AmbiBenchSections(by_position=by_position(results), repeats=repeats(results))
    return AmbiBenchSections()


def oracle_points(sections: AmbiBenchSections) -> AmbiBenchHeadlines:
    """The oracle's accuracy per position, reported beside the study's headline numbers."""
    curve = sections.by_position.oracle.overall if sections.by_position is not None else None
    if curve is None:
        return AmbiBenchHeadlines()
    return AmbiBenchHeadlines(
        oracle_by_position=[
            OraclePoint(position=p.position, n_episodes=p.n_episodes, accuracy=p.accuracy) for p in curve.points
        ]
    )
