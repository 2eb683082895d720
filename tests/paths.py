"""Where the repository is, for tests that read its files: one definition, so that a test file can move
between folders without counting its parents again."""

from __future__ import annotations

from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
