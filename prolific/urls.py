from __future__ import annotations

from django.urls import path

from studies.deferred import deferred

# each view is imported on its first request, not by every command's `check` (studies/deferred.py)
app_name = "prolific"
urlpatterns = [
    # Prolific signs its calls; it sends no CSRF token
    path("prolific/hooks/", deferred("prolific.hooks.webhook", csrf_exempt=True), name="webhook"),
    path("studies/<int:study_id>/prolific/", deferred("prolific.views.study_prolific"), name="study"),
]
