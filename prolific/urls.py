from __future__ import annotations

from typing import TYPE_CHECKING

from django.urls import path

from studies.deferred import deferred, views_module

if TYPE_CHECKING:
    from prolific import hooks, views
else:
    hooks = views_module("prolific.hooks")
    views = views_module("prolific.views")

# each view is imported on its first request, not by every command's `check` (studies/deferred.py)
app_name = "prolific"
urlpatterns = [
    # Prolific signs its calls; it sends no CSRF token
    path("prolific/hooks/", deferred(hooks.webhook, csrf_exempt=True), name="webhook"),
    path("studies/<int:study_id>/prolific/", deferred(views.study_prolific), name="study"),
]
