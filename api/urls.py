from __future__ import annotations

from django.urls import path

from api.deferred import DeferredView

# each view is imported on its first request: the URLconf, which every command's `check` loads,
# names them only (api/deferred.py)
app_name = "api"

urlpatterns = [
    path("studies/", DeferredView("api.reads.StudyListApi"), name="studies"),
    path("studies/create/", DeferredView("api.writes.StudyCreateApi"), name="study_create"),
    path("studies/<int:study_id>/", DeferredView("api.reads.StudyDetailApi"), name="study"),
    path("studies/<int:study_id>/status/", DeferredView("api.writes.StudyStatusApi"), name="study_status"),
    path("studies/<int:study_id>/items/", DeferredView("api.reads.StudyItemListApi"), name="study_items"),
    path(
        "studies/<int:study_id>/participants/",
        DeferredView("api.reads.ParticipantListApi"),
        name="study_participants",
    ),
    path(
        "studies/<int:study_id>/participants/<str:pseudonym>/exclusion/",
        DeferredView("api.writes.ParticipantExclusionApi"),
        name="participant_exclusion",
    ),
    path("studies/<int:study_id>/responses/", DeferredView("api.reads.ResponseListApi"), name="study_responses"),
    path("studies/<int:study_id>/model-runs/", DeferredView("api.reads.ModelRunListApi"), name="study_model_runs"),
    path(
        "studies/<int:study_id>/model-runs/start/",
        DeferredView("api.writes.ModelRunStartApi"),
        name="model_run_start",
    ),
    path(
        "studies/<int:study_id>/model-runs/<int:run_id>/cancel/",
        DeferredView("api.writes.ModelRunCancelApi"),
        name="model_run_cancel",
    ),
    path("studies/<int:study_id>/results/", DeferredView("api.reads.StudyResultsApi"), name="study_results"),
    path("studies/<int:study_id>/monitor/", DeferredView("api.monitor.StudyMonitorApi"), name="study_monitor"),
    path(
        "studies/<int:study_id>/exports/<str:fmt>/",
        DeferredView("api.reads.StudyExportApi"),
        name="study_export",
    ),
]
# the front page lists the patterns above
urlpatterns.append(path("", DeferredView("api.index.ApiIndex", operations=list(urlpatterns)), name="index"))
