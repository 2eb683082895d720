from __future__ import annotations

from django.apps import AppConfig


class ReplicationConfig(AppConfig):
    name = "replication"
    verbose_name = "Replication"
