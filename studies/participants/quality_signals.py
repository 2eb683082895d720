"""Writes of the review signals computed where this app cannot look (beside a study's model runs,
in `results.computing.quality`): kept on each participant (`Participant.review_signals`) so that the
admin's "flagged for review" filter, the monitor and the exports read them like the flags computed
here (`studies.participants.quality`).

When they are computed again: the services that change what they are computed from (a participant
finishing or returning, a participant erased, a model run done) ask for it with
`signals_refresh_queue`, after their transaction commits. Computing them is the job of an app above
this one (`results` registers it in its `AppConfig.ready()`); a page request never does. A
participant's answers are judged as a whole, so the refresh follows a participant's last answer, not
each answer: one task per participant, not one per item, and the flags of a participant still
answering are brought up to date when they finish (or by the results task, which keeps them too).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Collection, Iterable, Mapping
from typing import Any

from django.db import transaction

from studies.models import Participant, Study
from studies.results_token import results_changed


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


#: what each app above registers to have the signals of a study computed again (by its id)
_REFRESHERS: list[Callable[[int], None]] = []


def signals_refresher_register(refresh: Callable[[int], None]) -> None:
    """Called once by an app that computes review signals (in its `AppConfig.ready()`)."""
    if refresh not in _REFRESHERS:
        _REFRESHERS.append(refresh)


def signals_refresh_queue(*, study_ids: Iterable[int]) -> None:
    """Have the review signals of `study_ids` computed again once the current transaction commits
    (at once outside one); nothing happens if the transaction is rolled back."""
    chosen = sorted(set(study_ids))
    for refresh in _REFRESHERS:
        for study_id in chosen:
            transaction.on_commit(functools.partial(refresh, study_id))
