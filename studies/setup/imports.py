"""Importing a published human study: its annotators become imported participants of a closed study
and their answers `Response` rows, so the published baseline is read like any study of ours.

Files are read and checked completely before anything is written (one transaction), each row is
matched to an imported item by its content key (never by its position) and its text and gold
verified, and importing the same name again changes nothing.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import ngettext

from annotation.models import Item
from annotation.selectors import item_data
from parity import benchmarks
from parity.benchmarks.base import DatasetError
from parity.benchmarks.published import PublishedStudy
from parity.benchmarks.rows import normalise_text as normalise
from studies.models import Participant, Response, Study, Unit, UnitItem


class ImportRefused(ValueError):
    """The import cannot go ahead (a name clash, missing items); nothing was written."""


@dataclass(frozen=True)
class BaselineImportResult:
    study: Study
    created: bool
    participants: int
    responses: int

    @property
    def message(self) -> str:
        people = ngettext("%(n)d participant", "%(n)d participants", self.participants) % {"n": self.participants}
        answers = ngettext("%(n)d answer", "%(n)d answers", self.responses) % {"n": self.responses}
        if not self.created:
            return f"Study {self.study.name!r} is already imported ({people}, {answers}); nothing was written."
        units = self.study.units.count()
        return (
            f"Imported {self.study.name!r}: {ngettext('%(n)d unit', '%(n)d units', units) % {'n': units}}, "
            f"{people}, {answers} (closed study, id {self.study.pk})."
        )


# -- reading published files ------------------------------------------------------------------


def published_readers() -> dict[str, Callable[[Path], PublishedStudy]]:
    """The benchmarks with a published human study, and the reader of its files."""
    return {
        name: definition.read_published_study
        for name, definition in sorted(benchmarks.REGISTRY.items())
        if definition.published_study_name
    }


#: benchmarks with a published human study, and the reader of its files
PUBLISHED_READERS: dict[str, Callable[[Path], PublishedStudy]] = published_readers()


# -- matching and writing ---------------------------------------------------------------------


def _matched_items(published: PublishedStudy) -> list[list[Item]]:
    """Each subset's items, found by content key; refuses a row with no such item, a row whose text
    or gold differs, and an item met twice in one subset."""
    items = {
        item.key: item
        for item in Item.objects.filter(benchmark=published.benchmark, split=published.split, is_attention_check=False)
    }
    if not items:
        raise ImportRefused(
            f"no {published.benchmark} {published.split} items are imported yet: "
            f"run `manage.py import_benchmark {published.benchmark}` first"
        )
    matched = []
    for subset in published.subsets:
        unit_items: list[Item] = []
        rows_of: dict[int, int] = {}
        for row in subset.rows:
            item = items.get(published.item_key(row))
            if item is None:
                raise DatasetError(
                    subset.file,
                    f"no imported {published.split} item has this {' and '.join(published.match_fields)}",
                    row=row.row,
                )
            if item.pk in rows_of:
                raise DatasetError(subset.file, f"the same item as row {rows_of[item.pk]} ({item.key})", row=row.row)
            rows_of[item.pk] = row.row
            for name in published.match_fields:
                if normalise(row.prompt[name]) != normalise(str(item.prompt.get(name, ""))):
                    raise DatasetError(
                        subset.file,
                        f"{name} {row.prompt[name]!r} does not match item {item.key} ({item.prompt.get(name)!r})",
                        row=row.row,
                    )
            if row.gold != item.gold:
                raise DatasetError(
                    subset.file, f"ground truth {row.gold!r} differs from item {item.key}'s {item.gold!r}", row=row.row
                )
            unit_items.append(item)
        matched.append(unit_items)
    return matched


def _already_imported(name: str, published: PublishedStudy) -> BaselineImportResult | None:
    study = Study.objects.filter(name=name).first()
    if study is None:
        return None
    responses = Response.objects.filter(participant__study=study).count()
    if (
        study.is_imported
        and study.benchmark == published.benchmark
        and study.design.get("imported_from") == published.source
        and responses == published.n_responses
    ):
        return BaselineImportResult(study, created=False, participants=study.participants.count(), responses=responses)
    raise ImportRefused(f"a study named {name!r} already exists and is not this import; choose another --name")


def human_baseline_import(
    *, benchmark: str, source: Path, name: str, dry_run: bool = False, owner: Any = None
) -> BaselineImportResult:
    """Import a published human study as a closed study of imported participants (A1..An), owned by `owner`."""
    reader = PUBLISHED_READERS.get(benchmark)
    if reader is None:
        raise ImportRefused(
            f"no published human study is known for {benchmark!r}; known: {', '.join(sorted(PUBLISHED_READERS))}"
        )
    published = reader(Path(source))
    try:
        with transaction.atomic():
            existing = _already_imported(name, published)
            if existing is not None:
                return existing
            matched = _matched_items(published)
            result = _write(name, published, matched, owner)
            if dry_run:
                transaction.set_rollback(True)
            return result
    except IntegrityError as exc:
        raise ImportRefused(f"could not import {name!r}: {exc}") from exc


def _write(name: str, published: PublishedStudy, matched: list[list[Item]], owner: Any = None) -> BaselineImportResult:
    definition = benchmarks.get(published.benchmark)
    per_unit = max(len(subset.annotators) for subset in published.subsets)
    study = Study.objects.create(
        name=name,
        benchmark=published.benchmark,
        status=Study.Status.CLOSED,
        is_imported=True,
        design=definition.design(
            {
                "units": len(published.subsets),
                "per_unit": per_unit,
                "unit_size": max(len(s.rows) for s in published.subsets),
                "attention_checks": 0,
                "exclude_at": 0,
                "imported_from": published.source,
            }
        ),
        consent_text=f"Imported: {published.source}. No consent was collected on this platform.",
        instructions_text=definition.default_instructions,
        attention_checks=0,
        exclude_at=0,
        owner=owner,
    )
    now = timezone.now()
    number, participants, responses = 0, 0, []
    for position, (subset, items) in enumerate(zip(published.subsets, matched), start=1):
        unit = Unit.objects.create(study=study, label=subset.label, position=position, capacity=len(subset.annotators))
        UnitItem.objects.bulk_create(
            [UnitItem(unit=unit, item=item, order=order) for order, item in enumerate(items, start=1)]
        )
        for column_index, column in enumerate(subset.annotators):
            number += 1
            participant = Participant.objects.create(
                study=study,
                unit=unit,
                prolific_pid=f"imported-s{position}-a{column_index + 1}",
                pseudonym=f"A{number}",
                status=Participant.Status.COMPLETED,
                step=Participant.Step.DONE,
                sequence=[item.pk for item in items],
                answered=len(items),
                is_imported=True,
                started_at=now,
                last_seen_at=now,
                completed_at=now,
            )
            participants += 1
            for order, (row, item) in enumerate(zip(subset.rows, items), start=1):
                raw = row.answers[column_index]
                scored = definition.score(raw, item.gold, item=item_data(item))
                responses.append(
                    Response(
                        participant=participant,
                        item=item,
                        position=order,
                        raw_answer=raw,
                        answer=scored.answer or "",
                        valid=scored.valid,
                        correct=scored.correct,
                        is_attention_check=False,
                        shown_at=now,
                        answered_at=now,
                        duration_ms=0,
                        extra={"source_file": subset.file, "source_row": row.row, "source_column": column},
                    )
                )
    Response.objects.bulk_create(responses, batch_size=1000)
    study.pseudonyms_issued = number
    study.save(update_fields=["pseudonyms_issued"])
    return BaselineImportResult(study, created=True, participants=participants, responses=len(responses))
