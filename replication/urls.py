from __future__ import annotations

from django.urls import path

from replication import views

app_name = "replication"

urlpatterns = [
    path("<int:study_id>/bundle/", views.bundle, name="bundle"),
]
