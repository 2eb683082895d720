"""The page of a form refused by Django's CSRF check (settings.CSRF_FAILURE_VIEW), in a module of its
own: Django's system checks import this view at every command, and the participant's views, which
the URLconf imports on their first request, would come with it."""

from __future__ import annotations

from django.http import HttpResponse
from django.utils.translation import gettext

from participation.access import problem
from participation.i18n import browser_language
from studies.htmx import HtmxHttpRequest


def csrf_failure(request: HtmxHttpRequest, reason: str = "") -> HttpResponse:
    """A form posted without this site's CSRF cookie and token (settings.CSRF_FAILURE_VIEW). No
    study is known here: the page is in the browser's language."""
    with browser_language(request):
        return problem(
            request,
            gettext("This form could not be accepted"),
            gettext(
                "The page was open too long, or this browser blocks cookies for this site (the study needs "
                "them). Please allow cookies, then open the study again from Prolific: your answers so far "
                "are saved."
            ),
            status=403,
        )
