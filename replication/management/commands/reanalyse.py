from __future__ import annotations

import json
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError, CommandParser

from replication.archive import BundleRefused
from replication.compare import TOLERANCE
from replication.reanalysis import ReanalysisFailed, reanalyse


class Command(BaseCommand):
    help = (
        "Re-analyse a replication bundle: check its manifest (a file changed, missing or unlisted: refused, "
        "naming it), load it into a throw-away database, recompute every figure as `study_results --json` "
        f"does and compare each with the bundle's (floats within {TOLERANCE:g}, the rest exactly). Prints "
        "'reproduced', or each figure that differs; exits non-zero unless reproduced."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("file", type=Path, help="the bundle (zip)")

    def handle(self, *args, file: Path, **options) -> None:
        try:
            done = reanalyse(file)
        except BundleRefused as exc:
            raise CommandError(f"refused: {exc}") from exc
        except ReanalysisFailed as exc:
            raise CommandError(f"the bundle could not be loaded into a fresh database:\n{exc}") from exc
        name, comparison = done.manifest.get("study", ""), done.comparison
        if comparison.reproduced:
            self.stdout.write(f"reproduced: {comparison.figures} figures of {name!r}, every one the same")
            return
        for difference in comparison.differences:
            self.stdout.write(
                f"differs: {difference.path} bundled {json.dumps(difference.bundled)} "
                f"recomputed {json.dumps(difference.recomputed)}"
            )
        raise CommandError(f"not reproduced: {len(comparison.differences)} of {comparison.figures} figures differ")
