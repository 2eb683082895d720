from __future__ import annotations

from django.apps import AppConfig


class StudiesConfig(AppConfig):
    name = "studies"
    verbose_name = "Studies"

    def ready(self) -> None:
        from annotation.services import register_item_guard
        from studies.preregistration.document import frozen_items

        # an import never changes the items a launched study's frozen plan covers
        register_item_guard(frozen_items)
