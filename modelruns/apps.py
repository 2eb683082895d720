from django.apps import AppConfig


class ModelrunsConfig(AppConfig):
    name = "modelruns"
    verbose_name = "Model runs"

    def ready(self) -> None:
        from modelruns.preregistration import planned_runs
        from studies.preregistration.document import register_section

        # the preregistration names the models and settings to be run; studies cannot import them
        register_section("runs", planned_runs)
