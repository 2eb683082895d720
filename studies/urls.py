from __future__ import annotations

from django.urls import path

from studies.workflow import views

app_name = "studies"

urlpatterns = [
    path("new/", views.study_new, name="new"),
    path("items/import/", views.items_import, name="items_import"),
    path("<int:study_id>/", views.study_detail, name="detail"),
    path("<int:study_id>/status/", views.study_status, name="status"),
    path("<int:study_id>/edit/", views.study_edit, name="edit"),
    path("<int:study_id>/duplicate/", views.study_copy, name="duplicate"),
    path("<int:study_id>/preregistration/", views.preregistration_save, name="preregistration"),
    path(
        "<int:study_id>/preregistration.<str:fmt>",
        views.preregistration_download,
        name="preregistration_download",
    ),
]
