"""Where the published data lies for the pure benchmark tests (read in place, never copied)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def dataset(name: str) -> Path:
    path = Path(os.environ.get("DATASETS_DIR") or REPO.parent / "shared" / "datasets") / name
    if not path.is_dir():
        pytest.fail(f"the published {name} files are expected at {path} (set DATASETS_DIR)")
    return path
