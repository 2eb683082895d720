"""The identities withheld on the admin's pages (`studies.participants.withholding`): a participant may type their
Prolific ID into an answer, and a viewer without `studies.view_identity` reads that answer with it
withheld, on the list and on the answer's page alike, as in every export."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from copy import copy
from typing import Any

from django.http import HttpRequest

from studies.models import Participant, Response, Study
from studies.participants.identity import can_see_identities
from studies.participants.withholding import Withholder, study_withholder

#: the request being answered in this thread: whether it may see identities, and each study's
#: withholder, made once per list (a list shows a hundred answers of a few studies)
_listing = threading.local()


@contextmanager
def withheld_for(request: HttpRequest) -> Iterator[None]:
    """For the page of this request: its texts shown as `request.user` may read them."""
    _listing.sees_identities = can_see_identities(request.user)
    _listing.withholders = {}
    try:
        yield
    finally:
        # outside a list, `shown` withholds: never shows an identity for want of knowing the viewer
        del _listing.sees_identities, _listing.withholders


def shown(study: Study, text: str) -> str:
    """`text` of `study` as this request's viewer may read it (withheld unless they see identities)."""
    if getattr(_listing, "sees_identities", False):
        return text
    withholders: dict[int, Withholder] = getattr(_listing, "withholders", {})
    if study.pk not in withholders:
        withholders[study.pk] = study_withholder(study)
    return withholders[study.pk].text(text)


def for_viewer(request: HttpRequest, found: Any, withheld: Any) -> Any:
    """`found` (an answer or a participant for its admin page) as `request.user` may read it: a
    copy with `withheld` applied for a viewer without the identity permission (read only)."""
    if found is None or can_see_identities(request.user):
        return found
    study = found.study if isinstance(found, Participant) else found.participant.study
    return withheld(found, study_withholder(study))


def withheld_participant(participant: Participant, withholder: Withholder) -> Participant:
    """A copy of `participant` for display, the identities withheld from the reason and closing answers."""
    shown_copy = copy(participant)
    shown_copy.exclusion_reason = withholder.text(participant.exclusion_reason)
    shown_copy.closing_answers = _withheld_json(participant.closing_answers, withholder)
    return shown_copy


def withheld_response(response: Response, withholder: Withholder) -> Response:
    """A copy of `response` for display, with the identities withheld from all a person typed."""
    shown_copy = copy(response)
    shown_copy.raw_answer = withholder.text(response.raw_answer)
    shown_copy.answer = withholder.text(response.answer)
    shown_copy.explanation = withholder.text(response.explanation)
    shown_copy.extra = _withheld_json(response.extra, withholder)
    return shown_copy


def _withheld_json(value: Any, withholder: Withholder) -> Any:
    return json.loads(withholder.text(json.dumps(value, ensure_ascii=False)))
