"""Reads for a study's preregistration: the document built from what Parity knows about the study,
its items' canonical serialisation, and the audit trail compared with it.

Apps above `studies` add what only they know (the Prolific recruitment target, the model runs
planned) by registering a section in their `AppConfig.ready()`: studies never imports them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.template.loader import render_to_string

from annotation.models import Item
from parity import panels, preregistration_plan
from parity.training import TrainingQuestion, written
from studies.design import explanations
from studies.design.pay import hourly_pay
from studies.models import Preregistration, Study, StudyEvent, UnitItem

#: name → what an upper app adds to the document for a study (JSON-friendly, or None for nothing)
SECTIONS: dict[str, Callable[[Study], Any]] = {}


def register_section(name: str, provider: Callable[[Study], Any]) -> None:
    SECTIONS[name] = provider


def items_serialisation(study: Study) -> list[dict[str, Any]]:
    """The study's items, canonically (see `parity.preregistration_plan`): per unit in order, each item's
    key, prompt and gold in the order participants get them before any shuffling."""
    rows = (
        UnitItem.objects.filter(unit__study=study)
        .order_by("unit__position", "order")
        .values_list("unit__label", "item__key", "item__prompt", "item__gold")
    )
    units: list[dict[str, Any]] = []
    for label, key, prompt, gold in rows:
        if not units or units[-1]["unit"] != label:
            units.append({"unit": label, "items": []})
        units[-1]["items"].append({"key": key, "prompt": prompt, "gold": gold})
    return units


def attention_serialisation(study: Study) -> list[dict[str, Any]]:
    """The pool the attention checks are drawn from, in key order."""
    rows = (
        Item.objects.filter(
            benchmark=study.benchmark,
            is_attention_check=True,
            key__startswith=study.definition.item_scope(study.design),
        )
        .order_by("key")
        .values_list("key", "prompt", "gold")
    )
    return [{"key": key, "prompt": prompt, "gold": gold} for key, prompt, gold in rows]


def frozen_items(benchmark: str, items: list[Item], attention: set[int]) -> dict[int, list[str]]:
    """Of `items` (of `benchmark`), those a launched study's frozen plan covers, with the studies'
    names: an item of one of its units, or (`attention`: it was or is an attention check) of the pool
    its attention checks are drawn from. Registered with `annotation.services.register_item_guard`,
    so an import that would change them is refused."""
    launched = list(Study.objects.filter(benchmark=benchmark, preregistration__frozen_at__isnull=False))
    if not launched or not items:
        return {}
    held: dict[int, list[str]] = {}
    for pk, name in UnitItem.objects.filter(
        unit__study__in=launched, item_id__in=[item.pk for item in items]
    ).values_list("item_id", "unit__study__name"):
        held.setdefault(pk, []).append(name)
    for study in launched:
        scope = study.definition.item_scope(study.design)
        for item in items:
            if item.pk in attention and item.key.startswith(scope):
                held.setdefault(item.pk, []).append(study.name)
    return held


def _exclusion_rule(study: Study) -> str:
    if not study.attention_checks or not study.exclude_at:
        return "no participant is excluded automatically"
    return (
        f"a participant failing {study.exclude_at} or more of their {study.attention_checks} attention checks is "
        "excluded at once (their answers stay stored but out of the results) and gets the failed-check code"
    )


def _stopping_rule(precision: dict[str, Any] | None, places: int) -> str:
    if precision and precision.get("by") == "planned_looks":
        return (
            f"recruit on Prolific until {precision['rule']}: the places raised to each look's number of "
            "participants, set by the spread of their accuracies alone, and the study stopped only at a look; "
            f"spending at most £{precision['max_spend_pence'] / 100:.2f}"
        )
    if precision:
        return (
            f"recruit on Prolific until {precision['rule']}, raising the places by {precision['step']} at a time, "
            f"spending at most £{precision['max_spend_pence'] / 100:.2f}; then stop"
        )
    return f"all places filled: {places} completed, non-excluded participants (a freed place is offered again)"


def study_document(study: Study, hypotheses: str = "", notes: str = "") -> dict[str, Any]:
    """Everything Parity knows of the study's plan, as one JSON-friendly dict."""
    units = list(study.units.order_by("position"))
    items = items_serialisation(study)
    by_label = {entry["unit"]: len(entry["items"]) for entry in items}
    attention = attention_serialisation(study)
    places = sum(unit.capacity for unit in units)
    extra = {name: provider(study) for name, provider in sorted(SECTIONS.items())}
    precision = extra.get("recruitment")
    return {
        "version": preregistration_plan.DOCUMENT_VERSION,
        "study": {
            "name": study.name,
            "benchmark": study.benchmark,
            "benchmark_title": study.definition.title,
        },
        "hypotheses": hypotheses,
        "notes": notes,
        "design": {
            "settings": study.design,
            "n_units": len(units),
            "places": places,
            "units": [
                {
                    "label": unit.label,
                    "category": unit.category,
                    "n_items": by_label.get(unit.label, 0),
                    "capacity": unit.capacity,
                }
                for unit in units
            ],
        },
        "items": {
            "n_items": sum(by_label.values()),
            "n_units": len(items),
            "sha256": preregistration_plan.sha256_of(items),
            "n_attention_items": len(attention),
            "attention_sha256": preregistration_plan.sha256_of(attention),
            # which of the benchmark's items the units were drawn from (parity.sampling)
            "sampling": {
                "method": study.item_sampling,
                "size": study.sample_size,
                "seed": study.sample_seed,
                "pool": study.sample_pool,
            },
            "serialisation": "canonical JSON (UTF-8, sorted keys, no whitespace) of "
            '[{"unit": label, "items": [{"key", "prompt", "gold"}, ...]}, ...] in unit and item order',
        },
        "texts": {
            "language": study.language,
            "consent_sha256": preregistration_plan.text_sha256(study.consent_text),
            "instructions_sha256": preregistration_plan.text_sha256(study.instructions_text),
            "closing_questions": list(study.closing_questions),
            **_training(study),
            "explanations": {
                "mode": study.explanations,
                "every": study.explanation_every,
                "prompt": study.explanation_prompt,
                "asked": explanations.describe(study),
            },
        },
        "quality": {
            "attention_checks": study.attention_checks,
            "exclude_at": study.exclude_at,
            "exclusion_rule": _exclusion_rule(study),
            "min_answer_ms": study.min_answer_ms,
            "answer_floor": f"answers sooner than {study.min_answer_ms} ms after the item was shown are refused"
            if study.min_answer_ms
            else "none",
            "reservation_timeout_minutes": study.reservation_timeout_minutes,
        },
        "recruitment": {
            "places": places,
            "precision": precision,
            "stopping_rule": _stopping_rule(precision, places),
            "pid_format": study.get_pid_format_display(),
            # the panel that recruits (parity.panels) and its settings: its link, ids and ways out
            "panel": study.recruiting_panel.name,
            "panel_settings": dict(study.panel_settings),
            "group": study.group,
            # Prolific's prescreening as chosen (studies.design.screening), sent with the study
            "prescreening": dict(study.prolific_filters),
        },
        "pay": {
            "reward_pence": study.reward_pence,
            "reward": f"{panels.SYMBOLS[study.recruiting_panel.currency]}{study.reward_pence / 100:.2f}",
            "estimated_minutes": study.estimated_minutes,
            "hourly": str(hourly_pay(study.reward_pence, study.estimated_minutes, study.panel)),
        },
        "runs": extra.get("runs") or [],
        "statistics": list(preregistration_plan.STATISTICS),
        "reporting": {
            "population": study.population,
            "ethics": {
                "body": study.ethics_body,
                "reference": study.ethics_reference,
                "exemption": study.ethics_exemption,
            },
            "paper": {"title": study.paper_title, "url": study.paper_url, "venue": study.paper_venue},
            "power": study.power_analysis,
        },
    }


def plan_events(study: Study) -> list[preregistration_plan.Event]:
    return [
        preregistration_plan.Event(
            at=event.at.isoformat(),
            kind=event.kind,
            summary=event.summary,
            data=event.data,
            actor=event.actor.get_username() if event.actor else "",
        )
        for event in StudyEvent.objects.filter(study=study).select_related("actor").order_by("at", "pk")
    ]


def current_document(study: Study, preregistration: Preregistration | None) -> tuple[dict[str, Any], str]:
    """The frozen document and its hash, or for a draft the document as it would freeze now."""
    if preregistration is not None and preregistration.is_frozen:
        return preregistration.document or {}, preregistration.sha256
    text = (preregistration.hypotheses, preregistration.notes) if preregistration else ("", "")
    document = study_document(study, *text)
    return document, preregistration_plan.sha256_of(document)


def rendered(study: Study, preregistration: Preregistration | None) -> dict[str, Any]:
    """The preregistration as Markdown and as a standalone printable HTML page, with its deviations."""
    document, sha256 = current_document(study, preregistration)
    frozen_at = preregistration.frozen_at.isoformat() if preregistration and preregistration.frozen_at else None
    events = plan_events(study) if frozen_at else []
    found = preregistration_plan.deviations(document, events) if frozen_at else []
    markdown = preregistration_plan.render_markdown(document, sha256=sha256, frozen_at=frozen_at, deviations=found)
    html = render_to_string(
        "studies/preregistration.html",
        {
            "document": document,
            "sha256": sha256,
            "frozen_at": frozen_at,
            "deviations": found,
            "study": study,
            # a document frozen before these fields existed has none: the rows say "not stated"
            "reporting": preregistration_plan.reporting_rows(document.get("reporting") or {}),
        },
    )
    return {
        "markdown": markdown,
        "html": html,
        "sha256": sha256,
        "frozen_at": frozen_at,
        "document": document,
        "deviations": found,
        "events": events,
    }


def _training(study: Study) -> dict[str, Any]:
    """The practice and comprehension check as frozen: how many questions, their texts' hashes (as
    written, `parity.training.written`), the tries; nothing for a study without training."""
    if not study.practice_questions and not study.comprehension_questions:
        return {}
    texts = {
        name: written([TrainingQuestion.from_json(question) for question in getattr(study, name)])
        for name in ("practice_questions", "comprehension_questions")
    }
    return {
        "training": {
            "practice_questions": len(study.practice_questions),
            "practice_sha256": preregistration_plan.text_sha256(texts["practice_questions"]),
            "comprehension_questions": len(study.comprehension_questions),
            "comprehension_sha256": preregistration_plan.text_sha256(texts["comprehension_questions"]),
            "comprehension_tries": study.comprehension_tries,
        }
    }


def preregistration_export(study: Study) -> dict[str, Any] | None:
    """The study's preregistration for a replication bundle: its Markdown and printable HTML, its
    SHA-256 and freezing time, the frozen document, the "preregistered vs done" deviations and the
    whole audit trail; None when the study has none (an imported study, or one from before it)."""
    found = Preregistration.objects.filter(study=study).first()
    if found is None:
        return None
    shown = rendered(study, found)
    return {
        "markdown": shown["markdown"],
        "html": shown["html"],
        "sha256": shown["sha256"],
        "frozen_at": shown["frozen_at"],
        "document": shown["document"],
        "deviations": shown["deviations"],
        "audit": [
            {
                "at": event.at,
                "kind": event.kind,
                "summary": event.summary,
                "actor": event.actor,
                "data": dict(event.data),
            }
            for event in shown["events"]
        ],
    }
