"""The benchmarks' breakdowns, chosen by what the items carry rather than by the benchmark's name.

- a category field (`salient_feature`, `type`, `task`, `direction`): accuracy per category;
- model settings with a `template`: Ruis et al.'s per-template, structured/natural and per-type table;
- items with `episode` and `position`: AmbiBench's accuracy by position, per salient feature and
  format, with bootstrap CIs, and the Bayesian oracle over the same episodes;
- items with a `task` and open answers: instruction induction's per-task scores.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any, Iterable

from studies.results.forms import ResultFilters
from studies.results.rows import human_ratings, item_passes
from studies.results.selectors import HumanAnswer, ItemInfo, ModelAnswer, RunInfo, StudyData, setting_key
from studies.stats import (
    InstructionScore,
    OracleEpisode,
    PositionAnswer,
    TemplateAnswer,
    accuracy_summary,
    implicature_breakdown,
    instruction_induction_by_task,
    oracle_curve,
    position_curve,
    position_curves,
)
from studies.stats.results import finite_or_none

SEED = 0


def _mean(values: list[float]) -> float | None:
    return finite_or_none(sum(values) / len(values)) if values else None


def _ci(low: float | None, high: float | None) -> list[float | None] | None:
    return None if low is None or high is None else [low, high]


def breakdowns(data: StudyData, humans: list[HumanAnswer], runs: list[RunInfo],
               rows_by_run: dict[int, list[ModelAnswer]], filters: ResultFilters, *, n_boot: int) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if data.category_field:
        out["by_category"] = by_category(data, humans, runs, rows_by_run, n_boot=n_boot)
    templates = by_template(data, runs, rows_by_run)
    if templates:
        out["by_template"] = templates
    if any(_is_position_item(item.meta) for item in data.items.values()):
        out["by_position"] = by_position(data, humans, runs, rows_by_run, filters, n_boot=n_boot)
    if not data.answer_space and any("task" in item.meta for item in data.items.values()):
        out["by_task"] = by_task(humans, runs, rows_by_run, data)
    return out


# -- per category ---------------------------------------------------------------------------------


def by_category(data: StudyData, humans: list[HumanAnswer], runs: list[RunInfo],
                rows_by_run: dict[int, list[ModelAnswer]], *, n_boot: int) -> dict[str, Any]:
    human_groups: dict[str, list[HumanAnswer]] = defaultdict(list)
    for h in humans:
        human_groups[data.category_of(h.meta) or ""].append(h)
    model_groups: dict[tuple[int, str], list[ModelAnswer]] = defaultdict(list)
    for run in runs:
        for m in rows_by_run[run.id]:
            model_groups[(run.id, data.category_of(data.items[m.item_key].meta) or "")].append(m)
    items: dict[str, set[str]] = defaultdict(set)
    for h in humans:
        items[data.category_of(h.meta) or ""].add(h.item_key)
    for (_, category), rows in model_groups.items():
        items[category].update(m.item_key for m in rows)
    rows_out = []
    for category in sorted(items):
        group = human_groups.get(category, [])
        summary = accuracy_summary(human_ratings(data, group), n_boot=n_boot, seed=SEED) if group else None
        rows_out.append({
            "category": category or None,
            "n_items": len(items[category]),
            "human": {
                "n_annotators": summary.n_participants if summary else 0,
                "mean": summary.mean if summary else None,
                "ci95": _ci(summary.ci_low, summary.ci_high) if summary else None,
            },
            "models": [{"run": run.id, "label": run.label,
                        "accuracy": _mean([float(bool(m.correct)) for m in model_groups.get((run.id, category), [])
                                           if m.correct is not None])} for run in runs],
        })
    return {"field": data.category_field, "rows": rows_out}


# -- per template (model settings) ---------------------------------------------------------------


def _template_of(run: RunInfo) -> int | None:
    try:
        return int(run.setting["template"])
    except (KeyError, TypeError, ValueError):
        return None


def by_template(data: StudyData, runs: list[RunInfo], rows_by_run: dict[int, list[ModelAnswer]]
                ) -> list[dict[str, Any]]:
    """One breakdown per model × setting-without-template (e.g. per k), over its template runs."""
    groups: dict[tuple[str, str], list[RunInfo]] = defaultdict(list)
    rest_of: dict[tuple[str, str], dict[str, Any]] = {}
    for run in runs:
        if _template_of(run) is None:
            continue
        rest = {name: value for name, value in run.setting.items() if name != "template"}
        key = (run.model, setting_key(rest))
        groups[key].append(run)
        rest_of[key] = rest
    out = []
    for key, group in groups.items():
        answers = [TemplateAnswer(item=m.item_key, template=_template_of(run) or 0, correct=bool(m.correct),
                                  implicature_type=data.items[m.item_key].meta.get("type"))
                   for run in group for m in rows_by_run[run.id] if m.correct is not None]
        if not answers:
            continue
        breakdown = implicature_breakdown(answers).to_dict()
        out.append({"model": key[0], "setting": rest_of[key], "setting_key": key[1], **breakdown})
    return out


# -- by position (AmbiBench example disambiguation) ----------------------------------------------


def _is_position_item(meta: dict[str, Any] | Any) -> bool:
    return "episode" in meta and "position" in meta


def _position_answer(episode: str, meta: Any, correct: bool) -> PositionAnswer:
    return PositionAnswer(episode=episode, position=int(meta["position"]), score=1.0 if correct else 0.0,
                          salient_feature=meta.get("salient_feature"), format=meta.get("format"))


def _curves(answers: list[PositionAnswer], *, n_boot: int) -> dict[str, Any]:
    if not answers:
        return {"overall": None, "by_feature": [], "by_feature_format": []}
    return {
        "overall": position_curve(answers, n_boot=n_boot, seed=SEED).to_dict(),
        "by_feature": [c.to_dict() for c in position_curves(answers, by=("salient_feature",), n_boot=n_boot,
                                                             seed=SEED)],
        "by_feature_format": [c.to_dict() for c in position_curves(answers, n_boot=n_boot, seed=SEED)],
    }


def _oracle_episodes(items: Iterable[ItemInfo]) -> dict[str | None, list[OracleEpisode]]:
    episodes: dict[str, list[ItemInfo]] = defaultdict(list)
    for item in items:
        if _is_position_item(item.meta) and isinstance(item.meta.get("features"), dict) and item.gold:
            episodes[str(item.meta["episode"])].append(item)
    by_feature: dict[str | None, list[OracleEpisode]] = defaultdict(list)
    for episode in sorted(episodes):
        ordered = sorted(episodes[episode], key=lambda item: int(item.meta["position"]))
        features = tuple(ordered[0].meta["features"])
        oracle = OracleEpisode(features=features, examples=[(i.meta["features"], i.gold) for i in ordered])
        by_feature[None].append(oracle)
        by_feature[ordered[0].meta.get("salient_feature")].append(oracle)
    return by_feature


def _oracle(data: StudyData, filters: ResultFilters) -> dict[str, Any]:
    items = [item for key, item in data.items.items() if item_passes(data, key, filters)]
    try:
        groups = _oracle_episodes(items)
        overall = oracle_curve(groups.get(None, [])).to_dict() if groups.get(None) else None
        features = [{**oracle_curve(episodes).to_dict(), "group": {"salient_feature": feature}}
                    for feature, episodes in sorted(groups.items(), key=lambda kv: str(kv[0])) if feature is not None]
    except ValueError:
        # episodes outside the oracle's task family (not two binary features): no oracle
        return {"overall": None, "by_feature": []}
    return {"overall": overall, "by_feature": features}


def by_position(data: StudyData, humans: list[HumanAnswer], runs: list[RunInfo],
                rows_by_run: dict[int, list[ModelAnswer]], filters: ResultFilters, *, n_boot: int) -> dict[str, Any]:
    # For humans one episode is one participant's run through it.
    human_answers = [_position_answer(f"{h.annotator}/{h.meta['episode']}", h.meta, h.correct)
                     for h in humans if _is_position_item(h.meta)]
    models = []
    for run in runs:
        answers = [_position_answer(f"{data.items[m.item_key].meta['episode']}/{m.variant}",
                                    data.items[m.item_key].meta, bool(m.correct))
                   for m in rows_by_run[run.id] if _is_position_item(data.items[m.item_key].meta)]
        if answers:
            models.append({"run": run.id, "label": run.label, **_curves(answers, n_boot=n_boot)})
    return {"humans": _curves(human_answers, n_boot=n_boot), "models": models, "oracle": _oracle(data, filters)}


def oracle_points(sections: dict[str, Any]) -> list[dict[str, Any]] | None:
    curve = sections.get("by_position", {}).get("oracle", {}).get("overall")
    if curve is None:
        return None
    return [{"position": p["position"], "n_episodes": p["n_episodes"], "accuracy": p["accuracy"]}
            for p in curve["points"]]


# -- per task (instruction induction) ------------------------------------------------------------


def _similarity(scores: Any) -> float | None:
    """The reference score (BERTScore-style F1 against the best gold instruction), by either name."""
    value = scores.get("reference_similarity", scores.get("reference_f1"))
    return None if value is None else float(value)


def by_task(humans: list[HumanAnswer], runs: list[RunInfo], rows_by_run: dict[int, list[ModelAnswer]],
            data: StudyData) -> dict[str, Any]:
    human_scores = [InstructionScore(task=str(h.meta["task"]), instruction=f"{h.annotator}/{h.item_key}",
                                     execution_accuracy=h.scores.get("execution_accuracy"),
                                     reference_similarity=_similarity(h.scores),
                                     verified=h.scores.get("verified"))
                    for h in humans if "task" in h.meta and h.valid]
    models = []
    for run in runs:
        scores = [InstructionScore(task=str(data.items[m.item_key].meta["task"]), instruction=f"{run.id}/{m.item_key}",
                                   execution_accuracy=m.scores.get("execution_accuracy"),
                                   reference_similarity=_similarity(m.scores))
                  for m in rows_by_run[run.id] if "task" in data.items[m.item_key].meta]
        if scores:
            models.append({"run": run.id, "label": run.label,
                           "tasks": [t.to_dict() for t in instruction_induction_by_task(scores)]})
    return {"humans": [t.to_dict() for t in instruction_induction_by_task(human_scores)], "models": models}
