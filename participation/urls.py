from __future__ import annotations

from django.urls import URLPattern, path

from studies.deferred import deferred

# each view is imported on its first request, not by every command's `check` (studies/deferred.py)
app_name = "participation"


def _preview(suffix: str, name: str) -> URLPattern:
    """A page of the researcher's walk through the participant's pages (writing nothing)."""
    return path(f"studies/<int:study_id>/preview/{suffix}", deferred(f"participation.preview_views.{name}"), name=name)


urlpatterns = [
    path("s/<slug:link>/", deferred("participation.views.enter"), name="enter"),
    path("s/<slug:link>/step/", deferred("participation.views.step"), name="step"),
    path("s/<slug:link>/consent/", deferred("participation.views.consent"), name="consent"),
    path("s/<slug:link>/begin/", deferred("participation.views.begin"), name="begin"),
    path("s/<slug:link>/practice/", deferred("participation.training_views.practice"), name="practice"),
    path(
        "s/<slug:link>/practice/next/",
        deferred("participation.training_views.practice_continue"),
        name="practice_continue",
    ),
    path("s/<slug:link>/comprehension/", deferred("participation.training_views.comprehension"), name="comprehension"),
    path("s/<slug:link>/answer/", deferred("participation.views.answer"), name="answer"),
    path("s/<slug:link>/closing/", deferred("participation.views.closing"), name="closing"),
    path("studies/<int:study_id>/preview/", deferred("participation.preview_views.preview_step"), name="preview"),
    _preview("restart/", "preview_restart"),
    _preview("consent/", "preview_consent"),
    _preview("begin/", "preview_begin"),
    _preview("answer/", "preview_answer"),
    _preview("practice/", "preview_practice"),
    _preview("practice/next/", "preview_practice_next"),
    _preview("comprehension/", "preview_comprehension"),
]
