"""Loading a checked bundle into an empty database: the study, its items, units, participants (by
pseudonym), their answers, the model specs, runs and answers, and instruction induction's executed
instructions, so that the results are computed from them by the same code as any study's.

Rows are created in the order the bundle lists them, which is the order of the original database's
ids: the results read participants and answered attention checks in that order, so the recomputed
figures come from the same rows in the same order. The study and the runs keep their ids (the
results name them). A participant's Prolific ID here is their pseudonym. The bundle keeps the days
people took part (counted from the study's first day) and every time relative to the participant's
own start, never an hour of the day: each start is put on its day at the earliest hour consistent
with the day of completion (`EPOCH` for a study no one entered).
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from django.core.exceptions import ValidationError
from django.db import DatabaseError, transaction

from annotation.models import Item
from modelruns.models import InstructionScore, ModelResponse, ModelRun, ModelSpec
from replication.archive import Bundle, BundleRefused, text_of
from studies.models import Participant, Response, Study, Unit, UnitItem

#: the start every participant's relative times are counted from in a loaded bundle
EPOCH = datetime(2000, 1, 1, tzinfo=UTC)

_STUDY_FIELDS = (
    "name",
    "benchmark",
    "status",
    "is_imported",
    "group",
    "design",
    "attention_checks",
    "exclude_at",
    "estimated_minutes",
    "reward_pence",
    "reservation_timeout_minutes",
    "min_answer_ms",
    "language",
    "pid_format",
    "closing_questions",
    "pseudonyms_issued",
)
#: the study's reporting fields (and its recruitment and item sampling), absent from bundles made before
#: they existed (read as not entered)
_REPORTING_FIELDS = (
    "population",
    "ethics_body",
    "ethics_reference",
    "ethics_exemption",
    "paper_title",
    "paper_url",
    "paper_venue",
    "power_analysis",
    "prolific_filters",
    "item_sampling",
    "sample_size",
    "sample_seed",
    "sample_pool",
    "refused_earlier",
    "practice_questions",
    "comprehension_questions",
    "comprehension_tries",
    "explanations",
    "explanation_every",
    "explanation_prompt",
    "panel",
    "panel_settings",
)
_SPEC_FIELDS = ("model", "revision", "dtype", "device", "kind", "api_base_url", "api_features", "api_top_k")


class LoadRefused(ValueError):
    """The database is not empty, or the bundle does not hold together; nothing was written."""


def _at(start: datetime, milliseconds: int | None) -> datetime | None:
    return None if milliseconds is None else start + timedelta(milliseconds=milliseconds)


def _after(start: datetime, microseconds: int | None) -> datetime | None:
    return None if microseconds is None else start + timedelta(microseconds=microseconds)


def loaded_start(first_day: datetime, row: dict[str, Any]) -> datetime:
    """A start on the participant's day, at the earliest hour at which their time to completion ends
    on their day of completion: the days, the durations and so every figure come back as they were."""
    day = first_day + timedelta(days=row["started_day"] or 0)
    if row["completed_after_us"] is None or row["completed_day"] is None:
        return day
    took = timedelta(microseconds=row["completed_after_us"])
    return day + max(timedelta(0), timedelta(days=row["completed_day"] - (row["started_day"] or 0)) - took)


def _when(text: str | None) -> datetime | None:
    return datetime.fromisoformat(text) if text else None


#: what a file whose rows do not hold together raises as it is loaded: a field missing or of
#: another type, a number past what a column holds, a name no other file gives
_MALFORMED = (
    KeyError,
    IndexError,
    TypeError,
    AttributeError,
    ValueError,
    OverflowError,
    DatabaseError,
    ValidationError,
)


class _Reading:
    """The file being loaded, for the message of a refusal."""

    part = "study/settings.json"


def bundle_load(*, bundle: Bundle) -> Study:
    """The bundle's study, recreated in this (empty) database; `LoadRefused` naming the file whose
    rows do not hold together (the bundle's manifest says the files are as written, not that
    whoever wrote them wrote a study), and nothing is written."""
    if Study.objects.exists() or Item.objects.exists():
        raise LoadRefused("a bundle is loaded into an empty database only (this one has studies or items)")
    reading = _Reading()
    try:
        return _load(bundle, reading)
    except BundleRefused as exc:
        raise LoadRefused(str(exc)) from None
    except _MALFORMED as exc:
        raise LoadRefused(f"{reading.part}: {_described(exc)}; nothing was loaded") from None


def _described(exc: Exception) -> str:
    if isinstance(exc, KeyError):
        return f"no {exc.args[0]!r} (a field missing, or a name no other file of the bundle gives)"
    return str(exc) or type(exc).__name__


@transaction.atomic
def _load(bundle: Bundle, reading: _Reading) -> Study:
    settings = bundle.json("study/settings.json")
    reading.part = "study/consent.txt"
    consent = text_of("study/consent.txt", bundle.files["study/consent.txt"])
    instructions = text_of("study/instructions.txt", bundle.files["study/instructions.txt"])
    reading.part = "study/settings.json"
    study = Study.objects.create(
        pk=settings["id"],
        consent_text=consent,
        instructions_text=instructions,
        **{name: settings[name] for name in _STUDY_FIELDS},
        **{name: settings[name] for name in _REPORTING_FIELDS if name in settings},
    )
    reading.part = "items/items.jsonl"
    items = _load_items(bundle)
    reading.part = "study/settings.json"
    _load_units(study, settings["units"], items)
    reading.part = "humans/participants.jsonl"
    people = _load_participants(bundle, study, items)
    reading.part = "humans/answers.jsonl"
    _load_answers(bundle, people, items)
    reading.part = "models/runs.json"
    specs = _load_runs(bundle, study, items, reading)
    reading.part = "models/instruction_scores.jsonl"
    _load_instruction_scores(bundle, study, specs, items)
    return study


def _load_items(bundle: Bundle) -> dict[str, Item]:
    Item.objects.bulk_create([Item(**row) for row in bundle.jsonl("items/items.jsonl")], batch_size=1000)
    # the database held no item before: these are the bundle's
    return {item.key: item for item in Item.objects.all()}


def _load_units(study: Study, units: list[dict[str, Any]], items: dict[str, Item]) -> None:
    for row in units:
        unit = Unit.objects.create(
            study=study,
            label=row["label"],
            position=row["position"],
            capacity=row["capacity"],
            category=row["category"],
        )
        UnitItem.objects.bulk_create(
            [UnitItem(unit=unit, item=items[key], order=order) for order, key in enumerate(row["items"], start=1)]
        )


def _load_participants(bundle: Bundle, study: Study, items: dict[str, Item]) -> dict[str, Participant]:
    units = {unit.label: unit for unit in study.units.all()}
    first_day = bundle.json("study/settings.json").get("first_day")
    origin = datetime.fromisoformat(first_day).replace(tzinfo=UTC) if first_day else EPOCH
    people = {}
    for row in bundle.jsonl("humans/participants.jsonl"):
        started = loaded_start(origin, row)
        # one at a time: each gets its id in the bundle's order
        people[row["pseudonym"]] = Participant.objects.create(
            study=study,
            unit=units.get(row["unit"]),
            prolific_pid=row["pseudonym"],
            pseudonym=row["pseudonym"],
            status=row["status"],
            step=row["step"],
            sequence=[items[key].pk for key in row["sequence"]],
            answered=row["answered"],
            attention_failures=row["attention_failures"],
            excluded=row["excluded"],
            exclusion_reason=row["exclusion_reason"],
            is_imported=row["is_imported"],
            started_at=started,
            last_seen_at=started,
            completed_at=_after(started, row["completed_after_us"]),
            closing_answers=row["closing_answers"],
            **_training(started, row.get("training")),
        )
    return people


def _training(started: datetime, training: dict[str, Any] | None) -> dict[str, Any]:
    """A participant's training fields from the bundle's (`replication.parts._training`)."""
    if training is None:
        return {}
    began = _after(started, training["began_after_us"])
    return {
        "training_started_at": began,
        "training_ended_at": _after(began, training["took_us"]) if began is not None else None,
        "practice_answers": training["practice_answers"],
        "practice_read": training["practice_read"],
        "comprehension_tries": training["comprehension_tries"],
    }


def _load_answers(bundle: Bundle, people: dict[str, Participant], items: dict[str, Item]) -> None:
    starts = {pseudonym: person.started_at for pseudonym, person in people.items()}
    Response.objects.bulk_create(
        [
            Response(
                participant=people[row["pseudonym"]],
                item=items[row["item"]],
                position=row["position"],
                raw_answer=row["raw_answer"],
                answer=row["answer"],
                valid=row["valid"],
                correct=row["correct"],
                is_attention_check=row["is_attention_check"],
                shown_at=_at(starts[row["pseudonym"]], row["shown_after_ms"]) or starts[row["pseudonym"]],
                answered_at=_at(starts[row["pseudonym"]], row["answered_after_ms"]) or starts[row["pseudonym"]],
                duration_ms=row["duration_ms"],
                verified_correct=row["verified_correct"],
                # absent from bundles made before explanations were asked
                explanation=row.get("explanation", ""),
                extra={**row["presentation"], **row["scores"]},
            )
            for row in bundle.jsonl("humans/answers.jsonl")
        ],
        batch_size=1000,
    )


def _spec(described: dict[str, Any]) -> ModelSpec:
    spec, _ = ModelSpec.objects.get_or_create(
        name=described["name"], defaults={name: described[name] for name in _SPEC_FIELDS}
    )
    return spec


def _load_runs(bundle: Bundle, study: Study, items: dict[str, Item], reading: _Reading) -> dict[str, ModelSpec]:
    specs: dict[str, ModelSpec] = {}
    for row in bundle.json("models/runs.json"):
        spec = specs.get(row["spec"]["name"]) or _spec(row["spec"])
        specs[spec.name] = spec
        ModelRun.objects.create(
            pk=row["id"],
            study=study,
            spec=spec,
            setting=row["setting"],
            setting_key=row["setting_key"],
            status=row["status"],
            engine_version=row["engine_version"],
            model_identity=row["model_identity"],
            progress_done=row["progress_done"],
            progress_total=row["progress_total"],
            started_at=_when(row["started_at"]),
            finished_at=_when(row["finished_at"]),
            error=row["error"],
            prompt_tokens=row["prompt_tokens"],
            completion_tokens=row["completion_tokens"],
            api_requests=row["api_requests"],
        )
    reading.part = "models/answers.jsonl"
    ModelResponse.objects.bulk_create(
        [
            ModelResponse(
                run_id=row["run"],
                item=items[row["item"]],
                variant=row["variant"],
                raw_answer=row["raw_answer"],
                answer=row["answer"],
                valid=row["valid"],
                correct=row["correct"],
                scores=row["scores"],
                truncated_tokens=row["truncated_tokens"],
            )
            for row in bundle.jsonl("models/answers.jsonl")
        ],
        batch_size=1000,
    )
    return specs


def _load_instruction_scores(bundle: Bundle, study: Study, specs: dict[str, ModelSpec], items: dict[str, Item]) -> None:
    if "models/instruction_scores.jsonl" not in bundle.files:
        return
    answers = {
        (pseudonym, key): pk
        for pk, pseudonym, key in Response.objects.filter(participant__study=study).values_list(
            "pk", "participant__pseudonym", "item__key"
        )
    }
    for row in bundle.jsonl("models/instruction_scores.jsonl"):
        executor = specs.get(row["executor"]["name"]) or _spec(row["executor"])
        specs[executor.name] = executor
        score = InstructionScore.objects.create(
            study=study,
            executor=executor,
            source=row["source"],
            task=row["task"],
            response_id=answers[(row["pseudonym"], row["item"])] if row["pseudonym"] else None,
            gold_index=row["gold_index"],
            instruction=row["instruction"],
            execution_accuracy=row["execution_accuracy"],
            reference_similarity=row["reference_similarity"],
            similarity_model=row["similarity_model"],
            similarity_scorer=row["similarity_scorer"],
            similarity_layer=row["similarity_layer"],
            similarity_rescaled=row["similarity_rescaled"],
            similarity_baseline=row["similarity_baseline"],
            setting=row["setting"],
            outputs=row["outputs"],
        )
        # the executor scored last is the study's: the order of the original scores is kept
        InstructionScore.objects.filter(pk=score.pk).update(created_at=_when(row["created_at"]))
