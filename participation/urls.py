from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from django.http import HttpResponse
from django.urls import URLPattern, path

from studies.deferred import deferred, views_module

if TYPE_CHECKING:
    from participation import preview_views, training_views, views
else:
    preview_views = views_module("participation.preview_views")
    training_views = views_module("participation.training_views")
    views = views_module("participation.views")

# each view is imported on its first request, not by every command's `check` (studies/deferred.py)
app_name = "participation"


def _preview(suffix: str, view: Callable[..., HttpResponse]) -> URLPattern:
    """A page of the researcher's walk through the participant's pages (writing nothing), named as
    its view is."""
    page = deferred(view)
    return path(f"studies/<int:study_id>/preview/{suffix}", page, name=page.__name__)


urlpatterns = [
    path("s/<slug:link>/", deferred(views.enter), name="enter"),
    path("s/<slug:link>/step/", deferred(views.step), name="step"),
    path("s/<slug:link>/consent/", deferred(views.consent), name="consent"),
    path("s/<slug:link>/begin/", deferred(views.begin), name="begin"),
    path("s/<slug:link>/practice/", deferred(training_views.practice), name="practice"),
    path(
        "s/<slug:link>/practice/next/",
        deferred(training_views.practice_continue),
        name="practice_continue",
    ),
    path("s/<slug:link>/comprehension/", deferred(training_views.comprehension), name="comprehension"),
    path("s/<slug:link>/answer/", deferred(views.answer), name="answer"),
    path("s/<slug:link>/closing/", deferred(views.closing), name="closing"),
    path("studies/<int:study_id>/preview/", deferred(preview_views.preview_step), name="preview"),
    _preview("restart/", preview_views.preview_restart),
    _preview("consent/", preview_views.preview_consent),
    _preview("begin/", preview_views.preview_begin),
    _preview("answer/", preview_views.preview_answer),
    _preview("practice/", preview_views.preview_practice),
    _preview("practice/next/", preview_views.preview_practice_next),
    _preview("comprehension/", preview_views.preview_comprehension),
]
