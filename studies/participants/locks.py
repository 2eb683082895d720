"""The row locks a participant's writes take, in one order everywhere: the study's row before the
participant's, so that a write of one participant never waits on another that waits on it."""

from __future__ import annotations

from studies.models import Participant, Study


def participant_lock(*, participant_id: int) -> Participant:
    """The participant's row, locked for a write, with its study and unit; the study's row is locked
    first, in the order `participant_enter` takes them: a timed-out participant taking back their
    slot is then serialised with assignment, so a unit never goes past its capacity."""
    study_id = Participant.objects.values_list("study_id", flat=True).get(pk=participant_id)
    Study.objects.select_for_update().only("pk").get(pk=study_id)
    # `of`: only the participant's row (the study's is locked above)
    return Participant.objects.select_for_update(of=("self",)).select_related("study", "unit").get(pk=participant_id)


def participant_locked(participant: Participant) -> Participant:
    """The participant's row and its study's, locked for a step's write (call it inside
    `transaction.atomic()`): a double click, a refresh or a replayed POST takes its turn and then sees
    the step the first one wrote."""
    return Participant.objects.select_for_update().select_related("study").get(pk=participant.pk)
