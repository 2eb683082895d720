from __future__ import annotations

from django.urls import path

from studies.deferred import deferred

# each view is imported on its first request, not by every command's `check` (studies/deferred.py)
app_name = "replication"

urlpatterns = [
    path("<int:study_id>/bundle/", deferred("replication.views.bundle"), name="bundle"),
]
