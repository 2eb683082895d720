from django.apps import AppConfig


class ModelrunsConfig(AppConfig):
    name = "modelruns"
    verbose_name = "Model runs"
