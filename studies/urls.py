from __future__ import annotations

from django.urls import path

from studies import views

app_name = "studies"

urlpatterns = [
    path("", views.study_list, name="list"),
    path("<int:study_id>/results/", views.results, name="results"),
    path("<int:study_id>/export/<str:fmt>/", views.export, name="export"),
]
