from __future__ import annotations

from django.urls import path

from studies.deferred import deferred

# each view is imported on its first request, not by every command's `check` (studies/deferred.py)
app_name = "results"

urlpatterns = [
    path("", deferred("results.views.study_list"), name="list"),
    path("<int:study_id>/results/", deferred("results.views.results"), name="study"),
    path("<int:study_id>/results/item/", deferred("results.views.item"), name="item"),
    path("<int:study_id>/monitor/", deferred("results.views.monitor"), name="monitor"),
    path("<int:study_id>/export/<str:fmt>/", deferred("results.views.export"), name="export"),
    path("<int:study_id>/report/", deferred("results.views.report"), name="report"),
    path("<int:study_id>/checklist/", deferred("results.views.checklist"), name="checklist"),
]
