"""Where the published data lies for the pure benchmark tests (read in place, never copied)."""

from __future__ import annotations

from tests.conftest import dataset

__all__ = ["dataset"]
