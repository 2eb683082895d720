from __future__ import annotations

from typing import TYPE_CHECKING

from django.urls import path

from studies.deferred import deferred, views_module

if TYPE_CHECKING:
    from replication import views
else:
    views = views_module("replication.views")

# each view is imported on its first request, not by every command's `check` (studies/deferred.py)
app_name = "replication"

urlpatterns = [
    path("<int:study_id>/bundle/", deferred(views.bundle), name="bundle"),
]
