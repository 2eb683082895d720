"""What a replication bundle holds: a list of named parts, each a path in the archive and a function
that produces the file's bytes from the study (None: the study has nothing for it, no file).

Adding a file to every bundle is one `Part` in `PARTS`; `docs/replication.md` describes each.
Nothing here reads a Prolific identity: participants are their pseudonyms, times are relative to
the participant's start, and `bundle_files` withholds any identity string that still turns up.
"""

from __future__ import annotations

import io
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, date, timedelta
from functools import cached_property
from typing import Any

from django.core.management import call_command
from django.db.models import Prefetch
from django.template.loader import render_to_string

from annotation.models import Item
from modelruns.models import InstructionScore, ModelResponse, ModelRun
from modelruns.prompts import view_of
from modelruns.selectors import benchmark_assets, study_items
from modelruns.shard_answers import request_inputs
from parity.reporting.checklist import Answer, checklist_json, checklist_markdown
from parity.reporting.references import references_bib
from prolific.selectors import study_currency
from replication.archive import dumps, jsonl
from replication.software import software_versions
from results.computing.tree import StudyResults
from results.pipeline import study_checklist
from results.presenting.report import render_report
from results.presenting.report.materials import Materials, study_materials
from studies.models import Participant, Response, Study, UnitItem
from studies.participants.quality import participant_flags
from studies.preregistration.document import preregistration_export

#: the viewer a participant-independent screen is drawn for (a benchmark that orders options per
#: participant stores the order each one saw with their answer, as `presentation`)
BUNDLE_VIEWER = "replication-bundle"
#: `Response.extra` keys that are data: how the item was presented, a paste, a scorer's numbers
PRESENTATION_KEYS = ("option_order", "pasted")
SCORE_KEYS = ("execution_accuracy", "reference_similarity", "reference_f1")


@dataclass
class Source:
    """The study a bundle is made of, with the reads several parts share."""

    study: Study

    @cached_property
    def participants(self) -> list[Mapping[str, Any]]:
        """Every participant, in the order they arrived (the order the results read them in)."""
        return list(
            Participant.objects.filter(study=self.study)
            .order_by("pk")
            .values(
                "pk",
                "pseudonym",
                "unit__label",
                "status",
                "step",
                "sequence",
                "answered",
                "attention_failures",
                "excluded",
                "exclusion_reason",
                "is_imported",
                "started_at",
                "completed_at",
                "closing_answers",
                "training_started_at",
                "training_ended_at",
                "practice_answers",
                "practice_read",
                "comprehension_tries",
            )
        )

    @cached_property
    def items(self) -> dict[int, Item]:
        """The study's items, those answered outside its units (attention checks) and those shown, by id."""
        ids = {pk for row in self.participants for pk in row["sequence"]}
        ids |= set(Response.objects.filter(participant__study=self.study).values_list("item_id", flat=True))
        ids |= set(ModelResponse.objects.filter(run__study=self.study).values_list("item_id", flat=True))
        ids |= {item.pk for item in study_items(self.study)}
        ids |= set(self.study.units.values_list("unit_items__item_id", flat=True)) - {None}
        return Item.objects.in_bulk(sorted(ids))

    @cached_property
    def first_day(self) -> date | None:
        """The day (UTC) the first participant started: the days of participation count from it."""
        return min((row["started_at"].astimezone(UTC).date() for row in self.participants), default=None)

    @cached_property
    def results(self) -> dict[str, Any]:
        """What `study_results NAME --json` prints: the analysis output and the report's figures."""
        return study_results_json(self.study)

    @cached_property
    def results_tree(self) -> StudyResults:
        """`results` read back as the results tree: the report and the checklist are written from
        the very figures of `analysis/study_results.json`."""
        return StudyResults.from_json(self.results)

    @cached_property
    def checklist(self) -> list[Answer]:
        """The reporting checklist's answers (the three reports and the checklist's two files)."""
        return study_checklist(self.study, self.results_tree)

    @cached_property
    def materials(self) -> Materials:
        return study_materials(self.study)

    @cached_property
    def preregistration(self) -> dict[str, Any] | None:
        """The preregistration's export (its four files), None for a study without one."""
        return preregistration_export(self.study)

    @cached_property
    def runs(self) -> list[ModelRun]:
        return list(ModelRun.objects.filter(study=self.study).select_related("spec").order_by("pk"))


@dataclass(frozen=True)
class Part:
    path: str
    build: Callable[[Source], bytes | None]


# -- the study --------------------------------------------------------------------------------


def study_settings(source: Source) -> bytes:
    """The design and settings; never the study's link or its completion codes (they pay on Prolific)."""
    study = source.study
    # every unit's items in one query, not one a unit
    ordered = Prefetch("unit_items", queryset=UnitItem.objects.select_related("item").order_by("order"))
    units = [
        {
            "label": unit.label,
            "position": unit.position,
            "capacity": unit.capacity,
            "category": unit.category,
            "items": [row.item.key for row in unit.unit_items.all()],
        }
        for unit in study.units.order_by("position").prefetch_related(ordered)
    ]
    return dumps(
        {
            "id": study.pk,
            "name": study.name,
            "benchmark": study.benchmark,
            "status": study.status,
            "is_imported": study.is_imported,
            "group": study.group,
            "design": study.design,
            "attention_checks": study.attention_checks,
            "exclude_at": study.exclude_at,
            "estimated_minutes": study.estimated_minutes,
            "reward_pence": study.reward_pence,
            # the Prolific workspace's currency of reward_pence (its smallest unit), "" if never read
            "currency": study_currency(study.pk) if study.panel == "prolific" else study.recruiting_panel.currency,
            "reservation_timeout_minutes": study.reservation_timeout_minutes,
            "min_answer_ms": study.min_answer_ms,
            "language": study.language,
            "pid_format": study.pid_format,
            # the panel that recruited (parity.panels) and its settings: its link, ids and ways out
            "panel": study.panel,
            "panel_settings": study.panel_settings,
            "closing_questions": study.closing_questions,
            "explanations": study.explanations,
            "explanation_every": study.explanation_every,
            "explanation_prompt": study.explanation_prompt,
            "pseudonyms_issued": study.pseudonyms_issued,
            # entered by the researchers, and the design's power analysis: the report states them
            "population": study.population,
            "ethics_body": study.ethics_body,
            "ethics_reference": study.ethics_reference,
            "ethics_exemption": study.ethics_exemption,
            "paper_title": study.paper_title,
            "paper_url": study.paper_url,
            "paper_venue": study.paper_venue,
            "power_analysis": study.power_analysis,
            # who could take part and which items (the report's method section states them)
            "prolific_filters": study.prolific_filters,
            "item_sampling": study.item_sampling,
            "sample_size": study.sample_size,
            "sample_seed": study.sample_seed,
            "sample_pool": study.sample_pool,
            "refused_earlier": study.refused_earlier,
            # the training before the items, as written (parity.training)
            "practice_questions": study.practice_questions,
            "comprehension_questions": study.comprehension_questions,
            "comprehension_tries": study.comprehension_tries,
            "created_at": study.created_at.isoformat(),
            "first_day": source.first_day.isoformat() if source.first_day else None,
            "units": units,
        }
    )


def items_file(source: Source) -> bytes:
    """The items as stored, the order of their fields kept: an item's text is its fields in that
    order (the results' divergent items list it so), so a sorted copy would read differently."""
    return jsonl(
        (
            {
                "key": item.key,
                "benchmark": item.benchmark,
                "split": item.split,
                "prompt": item.prompt,
                "gold": item.gold,
                "meta": item.meta,
                "is_attention_check": item.is_attention_check,
            }
            for item in source.items.values()
        ),
        sort_keys=False,
    )


def items_as_participants_saw(source: Source) -> bytes:
    """Each item's screen as the participant page draws it: the benchmark's partial, rendered."""
    study = source.study
    definition = study.definition
    rows = []
    for item in source.items.values():
        screen = definition.screen(item.key, item.prompt, study.design, viewer=BUNDLE_VIEWER)
        context = {"study": study, "shown": screen.shown, "choices": screen.choices, "typed": "", "history": []}
        rows.append(
            {
                "key": item.key,
                "template": screen.template,
                "shown": screen.shown,
                "choices": [{"value": choice.value, "label": choice.label} for choice in screen.choices],
                "html": render_to_string(screen.template, context),
            }
        )
    return jsonl(rows)


# -- the people -------------------------------------------------------------------------------


def _ms_after(moment: Any, start: Any) -> int | None:
    return None if moment is None or start is None else round((moment - start).total_seconds() * 1000)


def _us_after(moment: Any, start: Any) -> int | None:
    """Microseconds, as the database keeps them: a completion time (and the pay per hour it makes)
    comes back exactly."""
    return None if moment is None or start is None else (moment - start) // timedelta(microseconds=1)


def _day_after(moment: Any, first: date | None) -> int | None:
    """Whole days (UTC) after the study's first day: when someone took part, never their hour."""
    return None if moment is None or first is None else (moment.astimezone(UTC).date() - first).days


def participants_file(source: Source) -> bytes:
    flags = participant_flags(Participant.objects.filter(study=source.study))
    keys = {pk: item.key for pk, item in source.items.items()}
    return jsonl(
        {
            "pseudonym": row["pseudonym"],
            "unit": row["unit__label"] or "",
            "status": row["status"],
            "step": row["step"],
            "sequence": [keys[pk] for pk in row["sequence"] if pk in keys],
            "answered": row["answered"],
            "attention_failures": row["attention_failures"],
            "excluded": row["excluded"],
            "exclusion_reason": row["exclusion_reason"],
            "is_imported": row["is_imported"],
            "started_day": _day_after(row["started_at"], source.first_day),
            "completed_day": _day_after(row["completed_at"], source.first_day),
            "completed_after_us": _us_after(row["completed_at"], row["started_at"]),
            "flags": flags.get(row["pk"], []),
            "closing_answers": row["closing_answers"],
            **_training(row),
        }
        for row in source.participants
    )


def _training(row: Mapping[str, Any]) -> dict[str, Any]:
    """A participant's training, for those who began one: its start and length after their start (no
    clock time, as for the study's days), the practice answers and the tries at the check."""
    if row["training_started_at"] is None:
        return {}
    return {
        "training": {
            "began_after_us": _us_after(row["training_started_at"], row["started_at"]),
            "took_us": _us_after(row["training_ended_at"], row["training_started_at"]),
            "practice_answers": row["practice_answers"],
            "practice_read": row["practice_read"],
            "comprehension_tries": row["comprehension_tries"],
        }
    }


def answers_file(source: Source) -> bytes:
    people = {row["pk"]: row for row in source.participants}
    rows = (
        Response.objects.filter(participant__study=source.study)
        .order_by("participant_id", "position")
        .values_list(
            "participant_id",
            "item__key",
            "position",
            "raw_answer",
            "answer",
            "valid",
            "correct",
            "is_attention_check",
            "shown_at",
            "answered_at",
            "duration_ms",
            "extra",
            "verified_correct",
            "explanation",
        )
    )
    out = []
    for row in rows:
        person, key, position, raw, answer, valid, correct, check, shown, answered, duration, extra, verified, why = row
        start = people[person]["started_at"]
        extra = extra or {}
        out.append(
            {
                "pseudonym": people[person]["pseudonym"],
                "item": key,
                "position": position,
                "raw_answer": raw,
                "answer": answer,
                "valid": valid,
                "correct": correct,
                "is_attention_check": check,
                "shown_after_ms": _ms_after(shown, start),
                "answered_after_ms": _ms_after(answered, start),
                "duration_ms": duration,
                "verified_correct": verified,
                "explanation": why,
                "presentation": {key: extra[key] for key in PRESENTATION_KEYS if key in extra},
                "scores": {key: extra[key] for key in SCORE_KEYS if key in extra},
            }
        )
    return jsonl(out)


# -- the models -------------------------------------------------------------------------------


def _spec(spec: Any) -> dict[str, Any]:
    # the API key's variable is the operator's, not the model's: left out
    return {
        "name": spec.name,
        "model": spec.model,
        "revision": spec.revision,
        "dtype": spec.dtype,
        "device": spec.device,
        "kind": spec.kind,
        "api_base_url": spec.api_base_url,
        "api_features": spec.api_features,
        "api_top_k": spec.api_top_k,
    }


def runs_file(source: Source) -> bytes:
    def when(moment: Any) -> str | None:
        return moment.isoformat() if moment else None

    return dumps(
        [
            {
                "id": run.pk,
                "spec": _spec(run.spec),
                "setting": run.setting,
                "setting_key": run.setting_key,
                "seeds": {name: value for name, value in sorted(run.setting.items()) if "seed" in name},
                "status": run.status,
                "engine_version": run.engine_version,
                "model_identity": run.model_identity,
                "progress_done": run.progress_done,
                "progress_total": run.progress_total,
                "created_at": when(run.created_at),
                "started_at": when(run.started_at),
                "finished_at": when(run.finished_at),
                "error": run.error,
                "prompt_tokens": run.prompt_tokens,
                "completion_tokens": run.completion_tokens,
                "api_requests": run.api_requests,
            }
            for run in source.runs
        ]
    )


def model_answers_file(source: Source) -> bytes:
    rows = (
        ModelResponse.objects.filter(run__study=source.study)
        .order_by("run_id", "item__key", "variant")
        .values_list(
            "run_id", "item__key", "variant", "raw_answer", "answer", "valid", "correct", "scores", "truncated_tokens"
        )
    )
    names = ("run", "item", "variant", "raw_answer", "answer", "valid", "correct", "scores", "truncated_tokens")
    return jsonl(dict(zip(names, row, strict=True)) for row in rows)


def model_prompts_file(source: Source) -> bytes | None:
    """Every text each run's model reads, built as the run builds them (`modelruns.prompts`): for a
    benchmark that asks later requests from earlier answers, the first stage."""
    if not source.runs:
        return None
    study = source.study
    items = study_items(study)
    assets = benchmark_assets(study.benchmark)
    rows: list[dict[str, Any]] = []
    for run in source.runs:
        try:
            requests = request_inputs(study.benchmark, items, run.setting, run.spec.scored_as, assets).requests({})
        except ValueError as exc:  # a template or a k-shot pool no longer imported
            rows.append({"run": run.pk, "error": str(exc)})
            continue
        for request in requests:
            view = view_of(request)
            rows.append(
                {
                    "run": run.pk,
                    "request": view.key,
                    "kind": view.kind,
                    "how": view.how,
                    "texts": [{"text": text.text, "continuation": text.continuation} for text in view.texts],
                    "reads": [{"offset": read.offset, "candidates": list(read.candidates)} for read in view.reads],
                }
            )
    return jsonl(rows)


def instruction_scores_file(source: Source) -> bytes | None:
    """Written and gold instructions executed by a chosen model (instruction induction's baselines)."""
    if not source.study.definition.executes_instructions:
        return None
    rows = (
        InstructionScore.objects.filter(study=source.study)
        .select_related("executor", "response__participant", "response__item")
        .order_by("pk")
    )
    return jsonl(
        {
            "executor": _spec(score.executor),
            "source": score.source,
            "task": score.task,
            "pseudonym": score.response.participant.pseudonym if score.response else None,
            "item": score.response.item.key if score.response else None,
            "gold_index": score.gold_index,
            "instruction": score.instruction,
            "execution_accuracy": score.execution_accuracy,
            "reference_similarity": score.reference_similarity,
            "similarity_model": score.similarity_model,
            "similarity_scorer": score.similarity_scorer,
            "similarity_layer": score.similarity_layer,
            "similarity_rescaled": score.similarity_rescaled,
            "similarity_baseline": score.similarity_baseline,
            "setting": score.setting,
            "outputs": score.outputs,
            "created_at": score.created_at.isoformat(),
        }
        for score in rows
    )


# -- the analysis -----------------------------------------------------------------------------


def study_results_json(study: Study) -> dict[str, Any]:
    """What `manage.py study_results NAME --json` prints, run through the command itself."""
    out = io.StringIO()
    call_command("study_results", study.name, json=True, stdout=out)
    return json.loads(out.getvalue())


def analysis_file(source: Source) -> bytes:
    return dumps(source.results)


def report_part(fmt: str) -> Callable[[Source], bytes]:
    """The study's report for a paper, written from the very figures of `analysis/study_results.json`."""

    def part(source: Source) -> bytes:
        # the report of the bundle is the report of its analysis file, read back as the results tree
        study = source.study
        return render_report(source.results_tree, fmt, source.checklist, study.public_title, source.materials).encode()

    return part


def checklist_part(write: Callable[[list[Answer]], str]) -> Callable[[Source], bytes]:
    """The study's answers to the human-baselines reporting checklist, from the analysis file's figures."""

    def part(source: Source) -> bytes:
        return write(source.checklist).encode()

    return part


def preregistration_part(build: Callable[[dict[str, Any]], bytes]) -> Callable[[Source], bytes | None]:
    """A file of the study's preregistration; none for a study without one (imported, or older)."""

    def part(source: Source) -> bytes | None:
        found = source.preregistration
        return None if found is None else build(found)

    return part


PARTS: list[Part] = [
    Part("study/settings.json", study_settings),
    Part("study/consent.txt", lambda source: source.study.consent_text.encode()),
    Part("study/instructions.txt", lambda source: source.study.instructions_text.encode()),
    Part("items/items.jsonl", items_file),
    Part("items/as_participants_saw.jsonl", items_as_participants_saw),
    Part("humans/participants.jsonl", participants_file),
    Part("humans/answers.jsonl", answers_file),
    Part("models/runs.json", runs_file),
    Part("models/answers.jsonl", model_answers_file),
    Part("models/prompts.jsonl", model_prompts_file),
    Part("models/instruction_scores.jsonl", instruction_scores_file),
    Part("preregistration/preregistration.md", preregistration_part(lambda found: found["markdown"].encode())),
    Part("preregistration/preregistration.html", preregistration_part(lambda found: found["html"].encode())),
    Part(
        "preregistration/preregistration.json",
        preregistration_part(lambda found: dumps({key: found[key] for key in ("sha256", "frozen_at", "document")})),
    ),
    Part(
        "preregistration/deviations.json",
        preregistration_part(lambda found: dumps({key: found[key] for key in ("deviations", "audit")})),
    ),
    Part("analysis/study_results.json", analysis_file),
    Part("analysis/report.md", report_part("markdown")),
    Part("analysis/report.tex", report_part("latex")),
    Part("analysis/report.html", report_part("html")),
    Part("analysis/checklist.md", checklist_part(checklist_markdown)),
    Part("analysis/checklist.json", checklist_part(checklist_json)),
    Part("analysis/references.bib", lambda source: references_bib(source.study.benchmark).encode()),
    Part("software.json", lambda source: dumps(software_versions())),
]
#: the names a bundle's files may have (a reader refuses any other)
PART_PATHS = frozenset(part.path for part in PARTS)
