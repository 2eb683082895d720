from __future__ import annotations

from django.urls import path

from studies.deferred import deferred

# each view is imported on its first request, not by every command's `check` (studies/deferred.py)
app_name = "studies"

urlpatterns = [
    path("new/", deferred("studies.workflow.views.study_new"), name="new"),
    path("items/import/", deferred("studies.workflow.views.items_import"), name="items_import"),
    path("<int:study_id>/", deferred("studies.workflow.views.study_detail"), name="detail"),
    path("<int:study_id>/status/", deferred("studies.workflow.views.study_status"), name="status"),
    path("<int:study_id>/edit/", deferred("studies.workflow.views.study_edit"), name="edit"),
    path("<int:study_id>/duplicate/", deferred("studies.workflow.views.study_copy"), name="duplicate"),
    path(
        "<int:study_id>/preregistration/",
        deferred("studies.workflow.views.preregistration_save"),
        name="preregistration",
    ),
    path(
        "<int:study_id>/preregistration.<str:fmt>",
        deferred("studies.workflow.views.preregistration_download"),
        name="preregistration_download",
    ),
]
