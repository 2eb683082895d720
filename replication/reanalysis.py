"""Re-analysis of a bundle: its manifest checked here, then its data loaded into a throw-away
database and every figure recomputed there, then compared with the bundle's own analysis.

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
from pathlib import Path
from typing import Any

from django.conf import settings

from replication.archive import Bundle, read_bundle
from replication.compare import Comparison, compare

ANALYSIS = "analysis/study_results.json"


class ReanalysisFailed(RuntimeError):
    """The throw-away database could not be made or loaded; the message carries its output."""


def recompute(path: Path) -> dict[str, Any]:
    """The `study_results --json` object of the bundle at `path`, recomputed in a fresh database."""
    with tempfile.TemporaryDirectory(prefix="parity-reanalysis-") as folder:
        out = Path(folder) / "recomputed.json"
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
            [*command, "--migrate", "--results-out", str(out)], env=env, capture_output=True, text=True
        )
        if done.returncode != 0:
            raise ReanalysisFailed((done.stderr or done.stdout).strip()[-4000:])
        return json.loads(out.read_text())


def reanalyse(path: Path) -> tuple[Bundle, Comparison]:
    """The bundle checked (`BundleRefused` before anything is loaded), recomputed and compared."""
    bundle = read_bundle(path)
    return bundle, compare(bundle.json(ANALYSIS), recompute(path))
