from __future__ import annotations

from django.urls import path

from studies.deferred import deferred

# each view is imported on its first request, not by every command's `check` (studies/deferred.py)
app_name = "modelruns"

urlpatterns = [
    path("study/<int:study_id>/", deferred("modelruns.views.study_runs"), name="study_runs"),
    path("study/<int:study_id>/start/", deferred("modelruns.views.start"), name="start"),
    path("study/<int:study_id>/runs/<int:run_id>/cancel/", deferred("modelruns.views.cancel"), name="cancel"),
    path("study/<int:study_id>/runs/<int:run_id>/rate/", deferred("modelruns.views.rate"), name="rate"),
]
