from __future__ import annotations

from django.urls import path

from results import views

app_name = "results"

urlpatterns = [
    path("", views.study_list, name="list"),
    path("<int:study_id>/results/", views.results, name="study"),
    path("<int:study_id>/results/item/", views.item, name="item"),
    path("<int:study_id>/monitor/", views.monitor, name="monitor"),
    path("<int:study_id>/export/<str:fmt>/", views.export, name="export"),
    path("<int:study_id>/report/", views.report, name="report"),
    path("<int:study_id>/checklist/", views.checklist, name="checklist"),
]
