"""Implicature's breakdowns beside overall accuracy (Ruis et al., Tables 1, 4, 5 and 12-58,
Figure 3): accuracy per prompt template; mean ± population std over the six main templates 1-6
(Table 12's "Mean – std" row: BERT-cased at k = 0 has 48.9 ± 3.81 over 47.3, 46.8, 57.3, 48.8,
46.7, 46.7); structured (1, 3, 4) and natural (2, 5, 6) each with their own mean ± std; the extra
templates 7-9 (Table 5) on their own; the contrastive variant (Table 8) as mean ± std over its own
two templates, with no structured or natural group; and per implicature type over the main
templates. Stds default to ``ddof=0`` like `parity.stats`.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from parity.stats.results import JsonResult, coerce_rows, mean_of_present, mean_std

STRUCTURED_TEMPLATES = (1, 3, 4)
NATURAL_TEMPLATES = (2, 5, 6)
MAIN_TEMPLATES = STRUCTURED_TEMPLATES + NATURAL_TEMPLATES
EXTRA_TEMPLATES = (7, 8, 9)
RANKING, CONTRASTIVE = "ranking", "contrastive"
# Test rows without a type label belong to the paper's "Other" type.
OTHER_TYPE = "Other"


@dataclass(frozen=True)
class TemplateAnswer:
    item: str
    template: int
    correct: bool
    implicature_type: str | None = None


@dataclass(frozen=True)
class TypeAccuracy(JsonResult):
    implicature_type: str
    n_items: int
    # Mean ± std over the headline templates of the per-template accuracy on this type.
    mean: float | None
    std: float | None
    per_template: dict[int, float]


@dataclass(frozen=True)
class ImplicatureBreakdown(JsonResult):
    variant: str
    per_template: dict[int, float]
    # The templates `mean` and `std` are over: 1-6 where run (ranking), or every contrastive one.
    templates: list[int]
    mean: float | None
    std: float | None
    ddof: int
    # None when none of the group's templates was run, and always for the contrastive variant;
    # the std None too with one template run (no spread). The templates each group is over:
    structured_templates: list[int]
    natural_templates: list[int]
    structured_mean: float | None
    structured_std: float | None
    natural_mean: float | None
    natural_std: float | None
    # Templates 7-9, reported apart from 1-6 as in the paper's Table 5.
    extra_templates: list[int]
    extra_mean: float | None
    extra_std: float | None
    per_type: list[TypeAccuracy]


def _accuracy_per_template(answers: Iterable[TemplateAnswer]) -> dict[int, float]:
    outcomes: dict[int, list[bool]] = defaultdict(list)
    for answer in answers:
        outcomes[answer.template].append(bool(answer.correct))
    return {
        template: accuracy
        for template in sorted(outcomes)
        if (accuracy := mean_of_present(outcomes[template])) is not None
    }


def _over(per_template: Mapping[int, float], group: Iterable[int], ddof: int) -> tuple[float | None, float | None]:
    return mean_std([per_template[t] for t in group if t in per_template], ddof=ddof)


def implicature_breakdown(
    answers: Iterable[TemplateAnswer | Mapping[str, Any]], *, ddof: int = 0, variant: str = RANKING
) -> ImplicatureBreakdown:
    """``answers``: one model (or human group) at one k and variant, one row per item × template."""
    if variant not in (RANKING, CONTRASTIVE):
        raise ValueError(f"variant must be {RANKING!r} or {CONTRASTIVE!r}, not {variant!r}")
    rows = coerce_rows(TemplateAnswer, answers)
    per_template = _accuracy_per_template(rows)
    ranking = variant == RANKING
    headline = [t for t in per_template if t in MAIN_TEMPLATES] if ranking else list(per_template)
    extra = [t for t in per_template if t in EXTRA_TEMPLATES] if ranking else []
    mean, std = _over(per_template, headline, ddof)
    structured = _over(per_template, STRUCTURED_TEMPLATES, ddof) if ranking else (None, None)
    natural = _over(per_template, NATURAL_TEMPLATES, ddof) if ranking else (None, None)
    extra_mean, extra_std = _over(per_template, extra, ddof)

    by_type: dict[str, list[TemplateAnswer]] = defaultdict(list)
    for row in rows:
        by_type[row.implicature_type or OTHER_TYPE].append(row)
    per_type = []
    for name in sorted(by_type):
        type_templates = _accuracy_per_template(by_type[name])
        type_mean, type_std = _over(type_templates, headline, ddof)
        per_type.append(
            TypeAccuracy(
                implicature_type=name,
                n_items=len({row.item for row in by_type[name]}),
                mean=type_mean,
                std=type_std,
                per_template=type_templates,
            )
        )
    return ImplicatureBreakdown(
        variant=variant,
        per_template=per_template,
        templates=headline,
        mean=mean,
        std=std,
        ddof=ddof,
        structured_templates=[t for t in per_template if t in STRUCTURED_TEMPLATES] if ranking else [],
        natural_templates=[t for t in per_template if t in NATURAL_TEMPLATES] if ranking else [],
        structured_mean=structured[0],
        structured_std=structured[1],
        natural_mean=natural[0],
        natural_std=natural[1],
        extra_templates=extra,
        extra_mean=extra_mean,
        extra_std=extra_std,
        per_type=per_type,
    )
