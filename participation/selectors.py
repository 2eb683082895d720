"""Which participant a browser is: the only place that decides, from the signed participant cookie."""

from __future__ import annotations

from django.http import HttpRequest

from participation import cookie
from studies.models import Participant, Study
from studies.participants.reads import known_participants, participant_at_link


def get_participant_for_request(request: HttpRequest, study: Study) -> Participant | None:
    """The participant this browser entered `study` as, or None (the only place that decides)."""
    participant_id = cookie.known(request).get(study.pk)
    if participant_id is None:
        return None
    # an erased identity is no longer anyone's: the browser that entered as it cannot resume it
    return known_participants([participant_id]).filter(study=study).first()


def get_participant_by_link(request: HttpRequest, link: str) -> Participant | None:
    """This browser's participant in the study at `link`, with the study, in one query (or None:
    the study does not exist, or this browser has not entered it)."""
    return participant_at_link(known_participant_ids(request), link)


def browser_entered_as(request: HttpRequest, pid: str) -> bool:
    """Whether this browser entered some study as `pid`: it may be told where that PID stands.
    Another browser holding a link with the same PID may not (anyone can type a PID into a link)."""
    ids = known_participant_ids(request)
    return bool(ids) and known_participants(ids).filter(prolific_pid=pid).exists()


def known_participant_ids(request: HttpRequest) -> list[int]:
    """The participants this browser entered, in any study."""
    return list(cookie.known(request).values())
