from __future__ import annotations

from django.apps import AppConfig


class ParticipationConfig(AppConfig):
    name = "participation"
    verbose_name = "Participant pages"
