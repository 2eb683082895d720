from __future__ import annotations

from django.urls import path

from participation import preview_views, training_views, views

app_name = "participation"

urlpatterns = [
    path("s/<slug:link>/", views.enter, name="enter"),
    path("s/<slug:link>/step/", views.step, name="step"),
    path("s/<slug:link>/consent/", views.consent, name="consent"),
    path("s/<slug:link>/begin/", views.begin, name="begin"),
    path("s/<slug:link>/practice/", training_views.practice, name="practice"),
    path("s/<slug:link>/practice/next/", training_views.practice_continue, name="practice_continue"),
    path("s/<slug:link>/comprehension/", training_views.comprehension, name="comprehension"),
    path("s/<slug:link>/answer/", views.answer, name="answer"),
    path("s/<slug:link>/closing/", views.closing, name="closing"),
    # the researcher's walk through these pages, writing nothing
    path("studies/<int:study_id>/preview/", preview_views.preview_step, name="preview"),
    path("studies/<int:study_id>/preview/restart/", preview_views.preview_restart, name="preview_restart"),
    path("studies/<int:study_id>/preview/consent/", preview_views.preview_consent, name="preview_consent"),
    path("studies/<int:study_id>/preview/begin/", preview_views.preview_begin, name="preview_begin"),
    path("studies/<int:study_id>/preview/answer/", preview_views.preview_answer, name="preview_answer"),
    path("studies/<int:study_id>/preview/practice/", preview_views.preview_practice, name="preview_practice"),
    path(
        "studies/<int:study_id>/preview/practice/next/",
        preview_views.preview_practice_next,
        name="preview_practice_next",
    ),
    path(
        "studies/<int:study_id>/preview/comprehension/",
        preview_views.preview_comprehension,
        name="preview_comprehension",
    ),
]
