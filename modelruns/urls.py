from __future__ import annotations

from typing import TYPE_CHECKING

from django.urls import path

from studies.deferred import deferred, views_module

if TYPE_CHECKING:
    from modelruns import views
else:
    views = views_module("modelruns.views")

# each view is imported on its first request, not by every command's `check` (studies/deferred.py)
app_name = "modelruns"

urlpatterns = [
    path("study/<int:study_id>/", deferred(views.study_runs), name="study_runs"),
    path("study/<int:study_id>/start/", deferred(views.start), name="start"),
    path("study/<int:study_id>/inspect-log/", deferred(views.import_inspect_log), name="import_inspect_log"),
    path("study/<int:study_id>/runs/<int:run_id>/cancel/", deferred(views.cancel), name="cancel"),
    path("study/<int:study_id>/runs/<int:run_id>/rate/", deferred(views.rate), name="rate"),
]
