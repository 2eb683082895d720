from __future__ import annotations

from django.urls import path

from api import index, monitor, reads, writes

app_name = "api"

urlpatterns = [
    path("studies/", reads.StudyListApi.as_view(), name="studies"),
    path("studies/create/", writes.StudyCreateApi.as_view(), name="study_create"),
    path("studies/<int:study_id>/", reads.StudyDetailApi.as_view(), name="study"),
    path("studies/<int:study_id>/status/", writes.StudyStatusApi.as_view(), name="study_status"),
    path("studies/<int:study_id>/items/", reads.StudyItemListApi.as_view(), name="study_items"),
    path("studies/<int:study_id>/participants/", reads.ParticipantListApi.as_view(), name="study_participants"),
    path(
        "studies/<int:study_id>/participants/<str:pseudonym>/exclusion/",
        writes.ParticipantExclusionApi.as_view(),
        name="participant_exclusion",
    ),
    path("studies/<int:study_id>/responses/", reads.ResponseListApi.as_view(), name="study_responses"),
    path("studies/<int:study_id>/model-runs/", reads.ModelRunListApi.as_view(), name="study_model_runs"),
    path("studies/<int:study_id>/model-runs/start/", writes.ModelRunStartApi.as_view(), name="model_run_start"),
    path(
        "studies/<int:study_id>/model-runs/<int:run_id>/cancel/",
        writes.ModelRunCancelApi.as_view(),
        name="model_run_cancel",
    ),
    path("studies/<int:study_id>/results/", reads.StudyResultsApi.as_view(), name="study_results"),
    path("studies/<int:study_id>/monitor/", monitor.StudyMonitorApi.as_view(), name="study_monitor"),
    path("studies/<int:study_id>/exports/<str:fmt>/", reads.StudyExportApi.as_view(), name="study_export"),
]
# the front page lists the patterns above
urlpatterns.append(path("", index.ApiIndex.as_view(operations=list(urlpatterns)), name="index"))
