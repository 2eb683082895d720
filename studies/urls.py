from __future__ import annotations

from typing import TYPE_CHECKING

from django.urls import path

from studies.deferred import deferred, views_module

if TYPE_CHECKING:
    from studies.workflow import views
else:
    views = views_module("studies.workflow.views")

# each view is imported on its first request, not by every command's `check` (studies/deferred.py)
app_name = "studies"

urlpatterns = [
    path("new/", deferred(views.study_new), name="new"),
    path("items/import/", deferred(views.items_import), name="items_import"),
    path("items/import/inspect/", deferred(views.items_import_inspect), name="items_import_inspect"),
    path("<int:study_id>/", deferred(views.study_detail), name="detail"),
    path("<int:study_id>/status/", deferred(views.study_status), name="status"),
    path("<int:study_id>/edit/", deferred(views.study_edit), name="edit"),
    path("<int:study_id>/duplicate/", deferred(views.study_copy), name="duplicate"),
    path(
        "<int:study_id>/preregistration/",
        deferred(views.preregistration_save),
        name="preregistration",
    ),
    path(
        "<int:study_id>/preregistration.<str:fmt>",
        deferred(views.preregistration_download),
        name="preregistration_download",
    ),
]
