"""Implicature's results beside overall accuracy: Ruis et al.'s per-template table for model
settings with a `template` (mean ± std over templates 1-6, structured/natural, templates 7-9 apart,
the contrastive variant apart, and per type; see `stats.implicature_breakdown`)."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from ..base import ResultsInput
from .sections import ImplicatureSections, TemplateGroup
from .stats import TemplateAnswer, implicature_breakdown


def _template_of(run: Any) -> int | None:
    try:
        return int(run.setting["template"])
    except (KeyError, TypeError, ValueError):
        return None


def by_template(results: ResultsInput) -> list[TemplateGroup]:
    """One breakdown per model × setting-without-template (e.g. per k), over its template runs."""
    groups: dict[tuple[str, str], list[Any]] = defaultdict(list)
    rest_of: dict[tuple[str, str], dict[str, Any]] = {}
    for run in results.runs:
        if _template_of(run) is None:
            continue
        rest = {name: value for name, value in run.setting.items() if name != "template"}
        key = (run.model, results.setting_label(rest))
        groups[key].append(run)
        rest_of[key] = rest
    out = []
    for key, group in groups.items():
        answers = [
            TemplateAnswer(
                item=m.item_key,
                template=_template_of(run) or 0,
                correct=bool(m.correct),
                implicature_type=results.items[m.item_key].meta.get("type"),
            )
            for run in group
            for m in results.rows_by_run[run.id]
            if m.correct is not None
        ]
        if not answers:
            continue
        breakdown = implicature_breakdown(answers, variant=str(rest_of[key].get("variant", "ranking")))
        out.append(TemplateGroup(model=key[0], setting=rest_of[key], setting_key=key[1], breakdown=breakdown))
    return out


def breakdowns(results: ResultsInput) -> ImplicatureSections:
    return ImplicatureSections(by_template=by_template(results) or None)
