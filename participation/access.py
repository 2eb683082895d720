"""Who a participant page is for: the study link resolved to this browser's participant, or a page
that says how to get back in."""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import TYPE_CHECKING

from django.http import HttpResponse
from django.shortcuts import render
from django.utils.translation import gettext

from participation.exits import for_panel
from participation.i18n import study_language
from participation.selectors import get_participant_by_link
from studies.htmx import HtmxHttpRequest
from studies.models import Participant
from studies.participants.reads import get_study_by_link

if TYPE_CHECKING:
    from django_stubs_ext import StrOrPromise


def problem(request: HtmxHttpRequest, title: StrOrPromise, message: StrOrPromise, status: int = 400) -> HttpResponse:
    return render(request, "problem.html", {"title": title, "message": message}, status=status)


def no_participant(request: HtmxHttpRequest, link: str) -> HttpResponse:
    """This browser has no participant at `link`: a 404 for a link to no study, else how to get back in."""
    study = get_study_by_link(link)
    with study_language(study):
        return problem(
            request,
            gettext("We could not find your place in this study"),
            for_panel(
                study,
                gettext(
                    "Please open the study again from Prolific, using the link there: your answers so far are saved."
                ),
                gettext(
                    "Please open the study again from {panel}, using the link there: your answers so far are saved."
                ),
            ),
        )


def participant_view(
    view: Callable[[HtmxHttpRequest, Participant], HttpResponse],
) -> Callable[[HtmxHttpRequest, str], HttpResponse]:
    """Resolve the study link and this browser's participant, or explain how to get back in."""

    @wraps(view)
    def wrapper(request: HtmxHttpRequest, link: str) -> HttpResponse:
        participant = get_participant_by_link(request, link)
        if participant is None:
            return no_participant(request, link)
        with study_language(participant.study):
            return view(request, participant)

    return wrapper
