from __future__ import annotations

from django.apps import AppConfig


class ProlificConfig(AppConfig):
    name = "prolific"
    verbose_name = "Prolific"

    def ready(self) -> None:
        from prolific.preregistration import study_recruitment
        from prolific.withholding import submission_identities
        from studies.participants.withholding import register_identities
        from studies.preregistration.document import register_section

        # the preregistration's stopping rule names the precision target; studies cannot import it
        register_section("recruitment", study_recruitment)
        # a submission's id and PID are withheld wherever the study's texts leave or are shown
        register_identities(submission_identities)
