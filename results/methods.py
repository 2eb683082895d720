"""What a methods section says of a study, as the `methods` part of its results dict.

Recruitment (Prolific, a study link, or a published study's answers imported), dates, who entered
and what became of them (exclusions counted by their recorded reason), the attention-check rule,
pay, the design, each model run's provenance and the statistics' settings. The report
(`results.report`) writes its methods paragraph from these numbers only, so the paragraph, the page
and `study_results --json` never disagree. Whole-study figures: the results' filters do not apply.
"""

from __future__ import annotations

from collections import Counter
from statistics import median
from typing import Any

from modelruns.models import LM_EVAL_SOURCE as IMPORTED_SOURCE
from parity.stats import quality
from prolific.currency import currency_or_default
from results.selectors import RunInfo, StudyData
from results.spine import StudyResults
from studies.models import Participant

#: the CIs' level, as every interval of the results is computed
CI_LEVEL = 0.95
#: a design setting longer than this (a template's text) is left out of the methods
SETTING_CHARS = 40

Status = Participant.Status


def _platform(data: StudyData) -> str:
    if data.study.is_imported:
        return "imported"
    return "prolific" if data.recruitment is not None else "link"


def _participants(data: StudyData) -> dict[str, Any]:
    people = data.everyone
    statuses = Counter(person.status for person in people)
    excluded = [person for person in people if person.excluded]
    reasons = Counter(person.exclusion_reason or "no reason recorded" for person in excluded)
    return {
        "entered": len(people),
        "imported": sum(person.is_imported for person in people),
        "declined": statuses[Status.DECLINED],
        "returned": statuses[Status.RETURNED],
        "timed_out": statuses[Status.TIMED_OUT],
        "in_progress": statuses[Status.ACTIVE],
        "completed": statuses[Status.COMPLETED],
        "excluded": len(excluded),
        "exclusion_reasons": [{"reason": reason, "n": n} for reason, n in sorted(reasons.items(), key=_most)],
    }


def _most(entry: tuple[str, int]) -> tuple[int, str]:
    return (-entry[1], entry[0])


def _day(moment: Any) -> str | None:
    return moment.date().isoformat() if moment is not None else None


def _dates(data: StudyData) -> dict[str, str | None]:
    """The days (UTC) data collection began and ended: what a paper says, and no participant's time."""
    people = [person for person in data.everyone if not person.is_imported]
    starts = [person.started_at for person in people if person.started_at is not None]
    ends = [person.completed_at for person in people if person.completed_at is not None]
    return {"first_start": _day(min(starts, default=None)), "last_completion": _day(max(ends, default=None))}


def _pay(data: StudyData) -> dict[str, Any]:
    study = data.study
    seconds = [
        (person.completed_at - person.started_at).total_seconds()
        for person in data.everyone
        if not person.is_imported and person.completed_at is not None and person.started_at is not None
    ]
    middle = median(seconds) if seconds else None
    return {
        "reward_pence": study.reward_pence,
        "estimated_minutes": study.estimated_minutes,
        "estimated_hourly_pence": quality.hourly_pence(study.reward_pence, study.estimated_minutes * 60),
        "median_minutes": middle / 60 if middle is not None else None,
        "median_hourly_pence": quality.hourly_pence(study.reward_pence, middle),
        "bonus_per_correct_pence": data.recruitment.bonus_per_correct_pence if data.recruitment else 0,
        # the Prolific workspace's currency, every amount above in its smallest unit (Prolific's
        # default, GBP, until Parity has read it)
        "currency": currency_or_default(data.recruitment.currency if data.recruitment else ""),
    }


def _design(data: StudyData) -> dict[str, Any]:
    study = data.study
    per_unit = Counter(unit for item in data.items.values() if not item.is_attention_check for unit in item.units)
    sizes = [per_unit.get(unit.label, 0) for unit in data.units]
    capacities = [unit.capacity for unit in data.units]
    labels = {option.key: option.label for option in study.definition.design_options}
    return {
        "benchmark": study.benchmark,
        "benchmark_title": study.definition.title,
        "n_units": len(data.units),
        "n_items": sum(1 for item in data.items.values() if not item.is_attention_check),
        "items_per_participant": {"min": min(sizes, default=0), "max": max(sizes, default=0)},
        "participants_per_unit": {"min": min(capacities, default=0), "max": max(capacities, default=0)},
        "settings": [
            {"key": key, "label": labels.get(key, key.replace("_", " ")), "value": value}
            for key, value in sorted(study.design.items())
            if isinstance(value, (int, float, bool)) or isinstance(value, str) and len(value) <= SETTING_CHARS
        ],
    }


def run_provenance(run: RunInfo) -> dict[str, Any]:
    """A run's model as a methods section names it: the requested revision, or the one the engine
    resolved when none was asked for; an imported run names its source file."""
    identity = run.identity
    imported = identity.get("source") == IMPORTED_SOURCE
    return {
        "run": run.id,
        "label": run.label,
        "model": run.model,
        "model_id": run.model_id or str(identity.get("model_id", "")),
        "revision": run.revision or str(identity.get("revision", "") or ""),
        "dtype": run.dtype or str(identity.get("dtype", "")),
        "kind": run.kind,
        "setting": run.setting_label,
        "source": IMPORTED_SOURCE if imported else "parity",
        "samples_file": identity.get("file") if imported else None,
        "engine_version": str(identity.get("engine_version", "")) if not imported else None,
    }


def methods_section(data: StudyData, results: StudyResults) -> dict[str, Any]:
    """The study's methods facts; `results` for the runs shown and the human CI's method."""
    study = data.study
    runs = {run.id: run for run in data.runs}
    return {
        "platform": _platform(data),
        "prolific": (
            {
                "places": data.recruitment.places,
                "status": data.recruitment.status,
                # the stopping rule: recruit until a target ("ci_width": the human-accuracy interval
                # at most `target_value` points wide; "per_unit": completions per unit), or "" for none
                "target_kind": data.recruitment.target_kind,
                "target_value": data.recruitment.target_value,
            }
            if data.recruitment
            else None
        ),
        "dates": _dates(data),
        "participants": _participants(data),
        "attention": {
            "checks_per_participant": study.attention_checks,
            "exclude_at": study.exclude_at,
            "answer_floor_ms": study.min_answer_ms,
        },
        "pay": _pay(data),
        "design": _design(data),
        "models": [run_provenance(runs[model.run]) for model in results.models if model.run in runs],
        "statistics": {
            "ci_level": CI_LEVEL,
            "n_boot": results.n_boot,
            "seed": results.seed,
            "human_ci_method": results.human.accuracy.ci_method,
        },
        # entered by the researchers while drafting, and the design's power analysis (studies.power)
        "reporting": {
            "population": study.population,
            "ethics": {
                "body": study.ethics_body,
                "reference": study.ethics_reference,
                "exemption": study.ethics_exemption,
            },
            "paper": {"title": study.paper_title, "url": study.paper_url, "venue": study.paper_venue},
            "power": study.power_analysis or None,
        },
    }
