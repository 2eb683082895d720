from __future__ import annotations

from django.urls import path

from studies.prolific_api.hooks import webhook

app_name = "prolific"
urlpatterns = [path("hooks/", webhook, name="webhook")]
