from __future__ import annotations

from typing import TYPE_CHECKING

from django.urls import path

from api.deferred import api_view
from studies.deferred import views_module

if TYPE_CHECKING:
    from api import index, monitor, reads, writes
else:
    index = views_module("api.index")
    monitor = views_module("api.monitor")
    reads = views_module("api.reads")
    writes = views_module("api.writes")

# each view is imported on its first request: the URLconf, which every command's `check` loads,
# names them only (api/deferred.py)
app_name = "api"

urlpatterns = [
    path("studies/", api_view(reads.StudyListApi), name="studies"),
    path("studies/create/", api_view(writes.StudyCreateApi), name="study_create"),
    path("studies/<int:study_id>/", api_view(reads.StudyDetailApi), name="study"),
    path("studies/<int:study_id>/status/", api_view(writes.StudyStatusApi), name="study_status"),
    path("studies/<int:study_id>/items/", api_view(reads.StudyItemListApi), name="study_items"),
    path(
        "studies/<int:study_id>/participants/",
        api_view(reads.ParticipantListApi),
        name="study_participants",
    ),
    path(
        "studies/<int:study_id>/participants/<str:pseudonym>/exclusion/",
        api_view(writes.ParticipantExclusionApi),
        name="participant_exclusion",
    ),
    path("studies/<int:study_id>/responses/", api_view(reads.ResponseListApi), name="study_responses"),
    path("studies/<int:study_id>/model-runs/", api_view(reads.ModelRunListApi), name="study_model_runs"),
    path(
        "studies/<int:study_id>/model-runs/start/",
        api_view(writes.ModelRunStartApi),
        name="model_run_start",
    ),
    path(
        "studies/<int:study_id>/model-runs/<int:run_id>/cancel/",
        api_view(writes.ModelRunCancelApi),
        name="model_run_cancel",
    ),
    path("studies/<int:study_id>/results/", api_view(reads.StudyResultsApi), name="study_results"),
    path("studies/<int:study_id>/monitor/", api_view(monitor.StudyMonitorApi), name="study_monitor"),
    path(
        "studies/<int:study_id>/exports/<str:fmt>/",
        api_view(reads.StudyExportApi),
        name="study_export",
    ),
]
# the front page lists the patterns above
urlpatterns.append(path("", api_view(index.ApiIndex, operations=list(urlpatterns)), name="index"))
