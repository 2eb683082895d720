from __future__ import annotations

from django.urls import path

from modelruns import views

app_name = "modelruns"

urlpatterns = [
    path("study/<int:study_id>/", views.study_runs, name="study_runs"),
    path("study/<int:study_id>/start/", views.start, name="start"),
    path("study/<int:study_id>/runs/<int:run_id>/cancel/", views.cancel, name="cancel"),
    path("study/<int:study_id>/runs/<int:run_id>/rate/", views.rate, name="rate"),
]
