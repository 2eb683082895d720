"""MiQA's results beside overall accuracy: Comsa et al.'s Table 3, accuracy per direction and k for
each model's best 0-shot wording and for the two baseline prompts."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from parity.stats.results import finite_or_none

from ..base import ResultsInput
from .sections import DirectionAccuracy, MiqaSections, ModelWordings, WordingRow

#: Table 3's names of the two baseline prompts
BASELINE_NAMES = {"empty": "baseline: no choices (empty prompt)", "pick": 'baseline: no questions ("Pick between")'}
TABLE3_SHOTS = ("0", "1", "5")


def _mean(values: list[float]) -> float | None:
    return finite_or_none(sum(values) / len(values)) if values else None


def _wording_runs(runs: Any) -> dict[str, dict[tuple[str, str], Any]]:
    """model -> (wording, k) -> its run (the latest of equal settings)."""
    found: dict[str, dict[tuple[str, str], Any]] = defaultdict(dict)
    for run in runs:
        if "wording" in run.setting and "k" in run.setting:
            found[run.model][(str(run.setting["wording"]), str(run.setting["k"]))] = run
    return found


def by_wording(results: ResultsInput) -> list[ModelWordings]:
    """Per model: accuracy per direction and k for the wording that did best at 0 shots (Section
    5.1: "for each model, we selected the prompt that performed best with 0-shot, and subsequently
    used this prompt ... in few-shot settings"; a tie goes to the lower wording number), and for
    the two baseline prompts; the 0-shot accuracy of every wording that ran, for the choice."""
    out = []
    for model, settings in _wording_runs(results.runs).items():

        def accuracy(run: Any | None) -> DirectionAccuracy | None:
            if run is None:
                return None
            scores = results.item_scores(results.rows_by_run[run.id])
            directions: dict[str, list[float]] = defaultdict(list)
            for key, score in scores.items():
                directions[str(results.items[key].meta.get("direction", ""))].append(score)
            return DirectionAccuracy(
                all=_mean(list(scores.values())),
                directions={direction: _mean(values) for direction, values in sorted(directions.items())},
            )

        # runs without scored answers (written answers waiting for grades) do not compete
        zero_shot = {
            wording: score
            for (wording, k), run in sorted(settings.items())
            if k == "0"
            and wording not in BASELINE_NAMES
            and (score := accuracy(run)) is not None
            and score.all is not None
        }
        ranked = [
            (best_score, wording) for wording, score in zero_shot.items() if (best_score := score.all) is not None
        ]
        best = min(ranked, key=lambda pair: (-pair[0], pair[1]))[1] if ranked else None
        prompts = ([(f"wording {best} (best 0-shot)", best)] if best else []) + list(
            (name, wording) for wording, name in BASELINE_NAMES.items()
        )
        rows = [
            WordingRow(
                prompt=name,
                wording=wording,
                by_k={k: accuracy(settings.get((wording, k))) for k in TABLE3_SHOTS},
            )
            for name, wording in prompts
            if any((wording, k) in settings for k in TABLE3_SHOTS)
        ]
        out.append(
            ModelWordings(
                model=model,
                best_wording=best,
                zero_shot={wording: score.all for wording, score in zero_shot.items()},
                rows=rows,
            )
        )
    return out


def breakdowns(results: ResultsInput) -> MiqaSections:
    return MiqaSections(by_wording=by_wording(results) or None)
