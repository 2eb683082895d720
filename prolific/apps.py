from __future__ import annotations

from django.apps import AppConfig


class ProlificConfig(AppConfig):
    name = "prolific"
    verbose_name = "Prolific"
