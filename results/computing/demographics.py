"""Who the included participants said they were: the study's closing questions (`studies.design.closing_questions`)
summarised over the participants whose answers are in the results, and the headline human accuracy
again without those who said they used an AI tool (the same `accuracy_summary`, fewer people).

Free text is never summarised here except the first language, counted case-folded: the results page
and the report show counts, never a participant's own words (the feedback stays in the exports,
withheld unless asked for)."""

from __future__ import annotations

from collections import Counter
from statistics import median
from typing import Any

import numpy as np

from parity.stats import AccuracySummary, accuracy_summary
from results.computing.rows import human_ratings
from results.computing.tree import AccuracyWithout, AgeSummary, ClosingSummary
from results.loading.columns import HumanColumns
from results.loading.study_data import StudyData
from studies.design.closing_questions import asked, study_keys
from studies.models import Study

#: the answers to "did you use an AI tool?" that say yes
AI_YES = frozenset({"some", "most"})
#: the closing questions counted by their answer (the age is summarised, the feedback never)
COUNTED = ("gender", "first_language", "education", "ai_tool")


def summarised(study: Study) -> bool:
    """Whether the study asks a closing question the results summarise (their answers are read then)."""
    keys = [question.key for question in asked(study_keys(study))]
    return any(key in keys for key in ("age", *COUNTED))


def closing_summary(data: StudyData, humans: HumanColumns, *, n_boot: int, seed: int) -> ClosingSummary | None:
    """The closing questions over the participants of `humans` (those in the results under the
    filters); None when the study asks none that is summarised."""
    if not summarised(data.study):
        return None
    keys = [question.key for question in asked(study_keys(data.study))]
    present = sorted(set(np.unique(humans.participant).tolist()))
    people = [humans.participants[p] for p in present]
    answers = data.closing_answers  # read with the data (`results.loading`)
    given = [answers.get(person.participant_id, {}) for person in people]
    ages = [int(a["age"]) for a in given if isinstance(a.get("age"), int | float | str) and str(a["age"]).isdigit()]
    counts = {
        key: dict(sorted(Counter(_counted(key, a[key]) for a in given if a.get(key) not in (None, "")).items()))
        for key in COUNTED
        if key in keys
    }
    ai_answered = [a["ai_tool"] for a in given if a.get("ai_tool") not in (None, "", "prefer_not_to_say")]
    said_yes = {person.participant_id for person, a in zip(people, given, strict=True) if a.get("ai_tool") in AI_YES}
    without = None
    if "ai_tool" in keys:
        # the same summary as the headline's, over the participants who did not say yes
        keep = humans.per_participant([p.participant_id not in said_yes for p in humans.participants], bool)
        without = accuracy_summary(human_ratings(data, humans.take(keep)), n_boot=n_boot, seed=seed)
    return ClosingSummary(
        asked=keys,
        n_participants=len(people),
        n_answered=sum(bool(a) for a in given),
        age=AgeSummary(n=len(ages), median=float(median(ages)), low=min(ages), high=max(ages)) if ages else None,
        counts=counts,
        ai_tool_yes=len(said_yes) if "ai_tool" in keys else None,
        ai_tool_answered=len(ai_answered) if "ai_tool" in keys else None,
        ai_tool_yes_share=(len(said_yes) / len(ai_answered)) if ai_answered else None,
        accuracy_without_ai_users=None if without is None else _without(without),
    )


def _counted(key: str, value: Any) -> str:
    """The answer as counted: a language as typed, case-folded and trimmed; a choice as its key."""
    return str(value).strip().casefold() if key == "first_language" else str(value)


def _without(summary: AccuracySummary) -> AccuracyWithout:
    undefined = summary.ci_low is None and summary.ci_high is None
    return AccuracyWithout(
        mean=summary.mean,
        ci95=None if undefined else [summary.ci_low, summary.ci_high],
        n_annotators=summary.n_participants,
    )
