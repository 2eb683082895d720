from __future__ import annotations

from typing import TYPE_CHECKING

from django.urls import path

from studies.deferred import deferred, views_module

if TYPE_CHECKING:
    from results import views
else:
    views = views_module("results.views")

# each view is imported on its first request, not by every command's `check` (studies/deferred.py)
app_name = "results"

urlpatterns = [
    path("", deferred(views.study_list), name="list"),
    path("<int:study_id>/results/", deferred(views.results), name="study"),
    path("<int:study_id>/results/item/", deferred(views.item), name="item"),
    path("<int:study_id>/monitor/", deferred(views.monitor), name="monitor"),
    path("<int:study_id>/export/<str:fmt>/", deferred(views.export), name="export"),
    path("<int:study_id>/report/", deferred(views.report), name="report"),
    path("<int:study_id>/checklist/", deferred(views.checklist), name="checklist"),
]
