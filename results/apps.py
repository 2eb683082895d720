from __future__ import annotations

from django.apps import AppConfig


class ResultsConfig(AppConfig):
    name = "results"
    verbose_name = "Results"
