from __future__ import annotations

from django.urls import path

from studies.deferred import deferred

# each view is imported on its first request, not by every command's `check` (studies/deferred.py)
app_name = "participation"

urlpatterns = [
    path("s/<slug:link>/", deferred("participation.views.enter"), name="enter"),
    path("s/<slug:link>/step/", deferred("participation.views.step"), name="step"),
    path("s/<slug:link>/consent/", deferred("participation.views.consent"), name="consent"),
    path("s/<slug:link>/begin/", deferred("participation.views.begin"), name="begin"),
    path("s/<slug:link>/answer/", deferred("participation.views.answer"), name="answer"),
    path("s/<slug:link>/closing/", deferred("participation.views.closing"), name="closing"),
    # the researcher's walk through these pages, writing nothing
    path("studies/<int:study_id>/preview/", deferred("participation.preview_views.preview_step"), name="preview"),
    path(
        "studies/<int:study_id>/preview/restart/",
        deferred("participation.preview_views.preview_restart"),
        name="preview_restart",
    ),
    path(
        "studies/<int:study_id>/preview/consent/",
        deferred("participation.preview_views.preview_consent"),
        name="preview_consent",
    ),
    path(
        "studies/<int:study_id>/preview/begin/",
        deferred("participation.preview_views.preview_begin"),
        name="preview_begin",
    ),
    path(
        "studies/<int:study_id>/preview/answer/",
        deferred("participation.preview_views.preview_answer"),
        name="preview_answer",
    ),
]
