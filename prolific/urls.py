from __future__ import annotations

from django.urls import path

from prolific.hooks import webhook
from prolific.views import study_prolific

app_name = "prolific"
urlpatterns = [
    path("prolific/hooks/", webhook, name="webhook"),
    path("studies/<int:study_id>/prolific/", study_prolific, name="study"),
]
