"""Re-analysis of a bundle: its data loaded into a throw-away database (its manifest checked first)
and every figure recomputed there, then compared with the bundle's own analysis. The bundle is read
once, by the loading process, which hands back its manifest and analysis beside the recomputed
figures; a refusal there (`BundleRefused`) is told apart by its exit status.

The throw-away database is a new SQLite file in a temporary folder, migrated from nothing by a
`manage.py load_bundle --migrate` subprocess whose DATABASE_URL points at it. A subprocess, because
every read and write of the results code goes to the default database: pointing a fresh process's
default database elsewhere runs exactly the code a fresh installation runs, without touching this
installation's database and without routing any query by hand.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from django.conf import settings

from replication.archive import BundleRefused
from replication.compare import Comparison, compare

ANALYSIS = "analysis/study_results.json"
#: the exit status of `load_bundle` when the bundle itself is refused
REFUSED = 3


class ReanalysisFailed(RuntimeError):
    """The throw-away database could not be made or loaded; the message carries its output."""


@dataclass(frozen=True)
class Reanalysis:
    manifest: dict[str, Any]
    comparison: Comparison


def recompute(path: Path) -> tuple[dict[str, Any], dict[str, Any]]:
    """The bundle's manifest and own analysis, and the `study_results --json` object of the bundle at
    `path` recomputed in a fresh database (`BundleRefused` when the bundle is refused)."""
    with tempfile.TemporaryDirectory(prefix="parity-reanalysis-") as folder:
        out, bundled = Path(folder) / "recomputed.json", Path(folder) / "bundled.json"
        env = {
            **os.environ,
            "DATABASE_URL": f"sqlite:///{Path(folder) / 'reanalysis.sqlite3'}",
            # its own var/ (the generated secret key, caches): nothing of this installation's is used
            "PARITY_VAR_DIR": str(Path(folder) / "var"),
            "TASK_QUEUE": "immediate",
            "DJANGO_SETTINGS_MODULE": "config.settings",
        }
        command = [sys.executable, str(Path(settings.BASE_DIR) / "manage.py"), "load_bundle", str(path)]
        done = subprocess.run(
            [*command, "--migrate", "--results-out", str(out), "--bundled-out", str(bundled)],
            env=env,
            capture_output=True,
            text=True,
        )
        if done.returncode == REFUSED:
            message = (done.stderr or done.stdout).strip().splitlines()[-1:] or ["refused"]
            raise BundleRefused(message[0].removeprefix("CommandError: ").removeprefix("refused: "))
        if done.returncode != 0:
            raise ReanalysisFailed((done.stderr or done.stdout).strip()[-4000:])
        return json.loads(bundled.read_text()), json.loads(out.read_text())


def reanalyse(path: Path) -> Reanalysis:
    """The bundle checked (`BundleRefused` before anything is loaded), recomputed and compared."""
    bundled, recomputed = recompute(path)
    return Reanalysis(manifest=bundled["manifest"], comparison=compare(bundled["analysis"], recomputed))
