from __future__ import annotations

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError
from django.urls import reverse

from parity.benchmarks.base import DatasetError
from results.demo import demo_setup


class Command(BaseCommand):
    help = "Set up the embedded demo (data, researcher login, demo studies) once; safe to run again."

    def handle(self, *args, **options) -> None:
        try:
            report = demo_setup()
        except DatasetError as exc:
            raise CommandError(f"Could not get the benchmark data: {exc}") from exc
        for line in report.lines:
            self.stdout.write(line)
        self.stdout.write(f"Sign in: {settings.PUBLIC_URL}{reverse('login')}")
        self.stdout.write(f"Admin: {settings.PUBLIC_URL}{reverse('admin:index')}")
        for study in report.studies:
            example = (
                study.participant_url()
                .replace("{{%PROLIFIC_PID%}}", "5f0c1a2b3c4d5e6f7a8b9c0d")
                .replace("{{%STUDY_ID%}}", "demo")
                .replace("{{%SESSION_ID%}}", "demo1")
            )
            self.stdout.write(f"{study.name}: participant link {example}")
