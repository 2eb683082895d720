"""Writes about items and answers: importing benchmarks, storing a participant's answer."""

from __future__ import annotations

import enum
import shutil
import tempfile
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

from django.db import IntegrityError, transaction
from django.utils import timezone

from annotation import benchmarks
from annotation.benchmarks.base import DatasetError, ImportBundle, sha256_of
from annotation.models import BenchmarkAsset, Item, Response
from annotation.selectors import item_data, screen_for, verifiable_responses


@dataclass(frozen=True)
class ImportResult:
    benchmark: str
    created: int
    updated: int
    unchanged: int
    assets: int
    splits: dict[str, int]


def benchmark_sources_fetch(*, name: str, dest: Path) -> Path:
    """Download a benchmark's published files from their pinned URLs and check each sha256."""
    definition = benchmarks.get(name)
    for source in definition.source_files():
        target = dest / source.path
        target.parent.mkdir(parents=True, exist_ok=True)
        if target.exists() and sha256_of(target) == source.sha256:
            continue
        with tempfile.NamedTemporaryFile(dir=target.parent, delete=False) as handle:
            partial = Path(handle.name)
            try:
                with urllib.request.urlopen(source.url, timeout=60) as response:
                    shutil.copyfileobj(response, handle)
            except OSError as exc:
                partial.unlink(missing_ok=True)
                raise DatasetError(source.path, f"download from {source.url} failed ({exc})") from exc
        digest = sha256_of(partial)
        if digest != source.sha256:
            partial.unlink(missing_ok=True)
            raise DatasetError(source.path, f"sha256 {digest} does not match the pinned {source.sha256}")
        partial.replace(target)
    return dest


def benchmark_sources_verify(*, name: str, source: Path) -> list[str]:
    """Compare local files with the pinned checksums; returns one warning per mismatch."""
    warnings = []
    for spec in benchmarks.get(name).source_files():
        path = source / spec.path
        if path.exists() and sha256_of(path) != spec.sha256:
            warnings.append(f"{spec.path}: sha256 differs from the published file")
    return warnings


def benchmark_import(*, name: str, source: Path | None, options: Mapping[str, Any] | None = None) -> ImportResult:
    """Parse everything first (refusing bad files), then write in one transaction: all or nothing.

    Idempotent: items are matched by (benchmark, key); a re-import of the same files changes nothing.
    """
    definition = benchmarks.get(name)
    bundle: ImportBundle = definition.load(source or Path("."), _with_prerequisites(definition, options))
    checks = definition.attention_checks()
    return _write_bundle(name, ImportBundle(items=list(bundle.items) + checks, assets=list(bundle.assets)))


def benchmark_records_import(*, name: str, records: list[Mapping[str, Any]],
                             options: Mapping[str, Any] | None = None) -> ImportResult:
    """Items from records in memory (e.g. a model run's answers), checked and written like an import."""
    definition = benchmarks.get(name)
    bundle = definition.load_records(records, _with_prerequisites(definition, options))
    return _write_bundle(name, bundle)


def rating_items_from_answers(answers: list[dict[str, str]]) -> ImportResult:
    """MiQA generative answers ({"question_id", "model", "answer"} each) become items to rate.

    Idempotent: an answer already imported (same question and model, same text) is unchanged.
    Raises DatasetError naming the record when one is malformed or its question is unknown.
    """
    return benchmark_records_import(name="miqa_rating", records=answers)


def _with_prerequisites(definition: benchmarks.Benchmark, options: Mapping[str, Any] | None) -> dict[str, Any]:
    """The options, plus the imported items of the benchmarks `definition` builds on."""
    merged = dict(options or {})
    if definition.builds_on:
        merged["items"] = {other: [item_data(item) for item in Item.objects.filter(benchmark=other).order_by("key")]
                           for other in definition.builds_on}
    return merged


@transaction.atomic
def _write_bundle(name: str, bundle: ImportBundle) -> ImportResult:
    existing = {item.key: item for item in Item.objects.filter(benchmark=name)}
    created, updated, unchanged = [], 0, 0
    for data in bundle.items:
        fields = {
            "split": data.split,
            "prompt": dict(data.prompt),
            "gold": data.gold,
            "meta": dict(data.meta),
            "is_attention_check": data.is_attention_check,
        }
        item = existing.get(data.key)
        if item is None:
            created.append(Item(benchmark=name, key=data.key, **fields))
            continue
        changed = [field for field, value in fields.items() if getattr(item, field) != value]
        if not changed:
            unchanged += 1
            continue
        for field in changed:
            setattr(item, field, fields[field])
        item.save(update_fields=changed)
        updated += 1
    Item.objects.bulk_create(created, batch_size=500)
    for asset in bundle.assets:
        BenchmarkAsset.objects.update_or_create(benchmark=name, key=asset.key, defaults={"data": asset.data})
    return ImportResult(
        benchmark=name, created=len(created), updated=updated, unchanged=unchanged,
        assets=len(bundle.assets), splits=bundle.summary(),
    )


# -- answers ------------------------------------------------------------------------------


class Outcome(enum.Enum):
    STORED = "stored"
    IGNORED = "ignored"  # a replay, a double click, a stale tab: nothing written
    INVALID = "invalid"  # refused with a message; nothing written


@dataclass(frozen=True)
class SubmitResult:
    outcome: Outcome
    response: Response | None = None
    message: str = ""


def response_submit(*, participant_id: int, item_id: int, position: int, raw_answer: str,
                    extra: Mapping[str, Any] | None = None) -> SubmitResult:
    """Store the answer to the participant's *current* item, exactly once.

    Anything else (a second copy of a double submit, a replayed POST, an answer to an earlier item,
    a second tab) is ignored: the caller shows the current step again.
    """
    from studies.models import Participant

    with transaction.atomic():
        # The row lock serialises concurrent submits of one participant on PostgreSQL; on SQLite
        # the IMMEDIATE transaction mode does the same for the whole database.
        participant = Participant.objects.select_for_update().select_related("study").get(pk=participant_id)
        if participant.step != Participant.Step.ITEMS:
            return SubmitResult(Outcome.IGNORED)
        if position != participant.answered + 1 or participant.sequence[participant.answered] != item_id:
            return SubmitResult(Outcome.IGNORED)
        item = Item.objects.get(pk=item_id)
        definition = participant.study.definition
        design = participant.study.design
        scored = definition.score(raw_answer, item.gold, design)
        message = definition.refusal(raw_answer, scored, design)
        if message:
            return SubmitResult(Outcome.INVALID, message=message)
        # what the participant was shown (e.g. the option order) is the server's, not the form's
        extra = {**(extra or {}), **screen_for(participant, item).record}
        now = timezone.now()
        shown_at = participant.current_shown_at or now
        try:
            with transaction.atomic():
                response = Response.objects.create(
                    participant=participant, item=item, position=position, raw_answer=raw_answer,
                    answer=scored.answer or "", valid=scored.valid, correct=scored.correct,
                    is_attention_check=item.is_attention_check, shown_at=shown_at, answered_at=now,
                    duration_ms=max(0, int((now - shown_at).total_seconds() * 1000)), extra=dict(extra or {}),
                )
        except IntegrityError:
            return SubmitResult(Outcome.IGNORED)
        _advance(participant, item, scored.correct, now)
    return SubmitResult(Outcome.STORED, response=response)


def _advance(participant, item: Item, correct: bool, now) -> None:
    from studies.models import Participant

    participant.answered += 1
    participant.current_shown_at = None
    participant.last_seen_at = now
    fields = ["answered", "current_shown_at", "last_seen_at"]
    if item.is_attention_check and not correct:
        participant.attention_failures += 1
        fields.append("attention_failures")
        threshold = participant.study.exclude_at
        if threshold and participant.attention_failures >= threshold and not participant.excluded:
            participant.excluded = True
            participant.exclusion_reason = f"failed {participant.attention_failures} attention checks (threshold {threshold})"
            fields += ["excluded", "exclusion_reason"]
    if participant.answered >= len(participant.sequence):
        participant.step = Participant.Step.DONE
        participant.status = Participant.Status.COMPLETED
        participant.completed_at = now
        fields += ["step", "status", "completed_at"]
    participant.save(update_fields=fields)


# -- a researcher's verification ------------------------------------------------------------


@dataclass(frozen=True)
class VerifyResult:
    marked: int
    skipped: int  # not answers of a benchmark verified by hand (or attention checks)


def responses_verify(*, response_ids: list[int], correct: bool | None, user) -> VerifyResult:
    """Mark written answers correct or incorrect (None clears the mark), recording who and when.

    Only the verification fields change: the answer, its score and its times stay as stored.
    """
    ids = set(response_ids)
    chosen = verifiable_responses().filter(pk__in=ids)
    marked = chosen.update(verified_correct=correct, verified_by=user if correct is not None else None,
                           verified_at=timezone.now() if correct is not None else None)
    return VerifyResult(marked=marked, skipped=len(ids) - marked)
