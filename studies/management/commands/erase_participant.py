from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError, CommandParser

from studies.models import Study
from studies.participants.erasure import ErasureError, participant_erase


class Command(BaseCommand):
    help = (
        "Honour a data-erasure request: replace a participant's Prolific identity in one study by a random "
        "token (answers kept under the pseudonym), or with --delete-answers delete the participant and "
        "every answer. Their PID, session and submission ids are replaced wherever else they are stored "
        "(submissions, bonus lines, webhook deliveries). The pseudonym is never handed out again."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("study", help="the study's name")
        parser.add_argument("prolific_pid", help="the PROLIFIC_PID named in the request")
        parser.add_argument("--delete-answers", action="store_true", help="also delete the participant's answers")
        parser.add_argument("--dry-run", action="store_true", help="say what would be erased; write nothing")

    def handle(self, *args, study: str, prolific_pid: str, delete_answers: bool, dry_run: bool, **options) -> None:
        found = Study.objects.filter(name=study).first()
        if found is None:
            raise CommandError(f"no study named {study!r}")
        try:
            erasure = participant_erase(
                study=found, prolific_pid=prolific_pid.strip(), delete_answers=delete_answers, dry_run=dry_run
            )
        except ErasureError as exc:
            raise CommandError(str(exc)) from exc
        self.stdout.write(("Dry run: " if dry_run else "") + erasure.message)
