"""Writes of the review signals computed where this app cannot look (beside a study's model runs,
in `results.integrity`): kept on each participant (`Participant.review_signals`) so that the
admin's "flagged for review" filter, the monitor and the exports read them like the flags computed
here (`studies.flags`)."""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any

from django.db import transaction

from studies.models import Participant, Study
from studies.results_versions import results_changed


@transaction.atomic
def participants_signals_set(
    *, study: Study, names: Collection[str], signals: Mapping[int, Mapping[str, Mapping[str, Any]]]
) -> int:
    """Replace the signals `names` of every participant of `study` with `signals` (participant id ->
    flag name -> its figures); a participant missing from `signals` loses those flags, and signals of
    other names are kept (each computation owns its own). Writes only the rows that change, and
    returns how many did. The results change with them (the results filter on flagged participants)."""
    owned = set(names)
    changed = []
    for participant in Participant.objects.filter(study=study).only("pk", "review_signals").select_for_update():
        kept = {name: figures for name, figures in participant.review_signals.items() if name not in owned}
        new = {name: dict(figures) for name, figures in signals.get(participant.pk, {}).items() if name in owned}
        merged = {**kept, **new}
        if merged != participant.review_signals:
            participant.review_signals = merged
            changed.append(participant)
    if changed:
        Participant.objects.bulk_update(changed, ["review_signals"])
        results_changed(study_ids=[study.pk])
    return len(changed)
