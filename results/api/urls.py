from __future__ import annotations

from django.urls import path

from results.api.deferred import DeferredView

# each view is imported on its first request: the URLconf, which every command's `check` loads,
# names them only (results/api/deferred.py)
app_name = "api"

urlpatterns = [
    path("studies/", DeferredView("results.api.views.StudyListApi"), name="studies"),
    path("studies/create/", DeferredView("results.api.writes.StudyCreateApi"), name="study_create"),
    path("studies/<int:study_id>/", DeferredView("results.api.views.StudyDetailApi"), name="study"),
    path("studies/<int:study_id>/status/", DeferredView("results.api.writes.StudyStatusApi"), name="study_status"),
    path("studies/<int:study_id>/items/", DeferredView("results.api.views.StudyItemListApi"), name="study_items"),
    path(
        "studies/<int:study_id>/participants/",
        DeferredView("results.api.views.ParticipantListApi"),
        name="study_participants",
    ),
    path(
        "studies/<int:study_id>/participants/<str:pseudonym>/exclusion/",
        DeferredView("results.api.views.ParticipantExclusionApi"),
        name="participant_exclusion",
    ),
    path(
        "studies/<int:study_id>/responses/", DeferredView("results.api.views.ResponseListApi"), name="study_responses"
    ),
    path(
        "studies/<int:study_id>/model-runs/", DeferredView("results.api.views.ModelRunListApi"), name="study_model_runs"
    ),
    path(
        "studies/<int:study_id>/model-runs/start/",
        DeferredView("results.api.writes.ModelRunStartApi"),
        name="model_run_start",
    ),
    path(
        "studies/<int:study_id>/model-runs/<int:run_id>/cancel/",
        DeferredView("results.api.writes.ModelRunCancelApi"),
        name="model_run_cancel",
    ),
    path("studies/<int:study_id>/results/", DeferredView("results.api.views.StudyResultsApi"), name="study_results"),
    path("studies/<int:study_id>/monitor/", DeferredView("results.api.monitor.StudyMonitorApi"), name="study_monitor"),
    path(
        "studies/<int:study_id>/exports/<str:fmt>/",
        DeferredView("results.api.views.StudyExportApi"),
        name="study_export",
    ),
]
# the front page lists the patterns above
urlpatterns.append(path("", DeferredView("results.api.index.ApiIndex", operations=list(urlpatterns)), name="index"))
