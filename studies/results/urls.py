from __future__ import annotations

from django.urls import path

from studies.prolific_api.views import study_prolific
from studies.results import views
from studies.workflow import preview_views
from studies.workflow import views as workflow

app_name = "studies"

urlpatterns = [
    path("", views.study_list, name="list"),
    path("new/", workflow.study_new, name="new"),
    path("items/import/", workflow.items_import, name="items_import"),
    path("<int:study_id>/", workflow.study_detail, name="detail"),
    path("<int:study_id>/status/", workflow.study_status, name="status"),
    path("<int:study_id>/prolific/", study_prolific, name="prolific"),
    path("<int:study_id>/preview/", preview_views.preview_step, name="preview"),
    path("<int:study_id>/preview/restart/", preview_views.preview_restart, name="preview_restart"),
    path("<int:study_id>/preview/consent/", preview_views.preview_consent, name="preview_consent"),
    path("<int:study_id>/preview/begin/", preview_views.preview_begin, name="preview_begin"),
    path("<int:study_id>/preview/answer/", preview_views.preview_answer, name="preview_answer"),
    path("<int:study_id>/results/", views.results, name="results"),
    path("<int:study_id>/monitor/", views.monitor, name="monitor"),
    path("<int:study_id>/export/<str:fmt>/", views.export, name="export"),
]
