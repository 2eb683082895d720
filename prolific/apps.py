from __future__ import annotations

from django.apps import AppConfig


class ProlificConfig(AppConfig):
    name = "prolific"
    verbose_name = "Prolific"

    def ready(self) -> None:
        from prolific.preregistration_recruitment import study_recruitment
        from studies.selectors_preregistration import register_section

        # the preregistration's stopping rule names the precision target; studies cannot import it
        register_section("recruitment", study_recruitment)
