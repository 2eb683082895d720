"""Content-addressed score cache: identical work for the same model is never run twice.

A key is the sha256 of (engine version, model id, revision, dtype, what was computed, the exact
token ids and read positions/targets); the value is the JSON of the result. Floats survive the
JSON round trip exactly, so a cache hit returns the very numbers of the first run. Entries live
in one SQLite file (WAL mode) so several workers may share a cache directory.
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import threading
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from .loading import ModelIdentity

#: bump when a change alters any cached number or text
ENGINE_VERSION = "3"  # 2: every read also carries the top token and its log-prob; 3: and its rank


def cache_key(identity: ModelIdentity, kind: str, payload: Sequence[Any]) -> str:
    material = json.dumps(
        [ENGINE_VERSION, identity.model_id, identity.revision, identity.dtype, kind, *payload], separators=(",", ":")
    )
    return hashlib.sha256(material.encode()).hexdigest()


def default_cache_dir() -> Path:
    env = os.environ.get("PARITY_SCORE_CACHE")
    return Path(env).expanduser() if env else Path.home() / ".cache" / "parity" / "scores"


class ScoreCache:
    """Key -> JSON value, in `<directory>/scores.sqlite3`."""

    def __init__(self, directory: str | Path | None = None) -> None:
        self.directory = Path(directory).expanduser() if directory is not None else default_cache_dir()
        self.directory.mkdir(parents=True, exist_ok=True)
        self.path = self.directory / "scores.sqlite3"
        self._lock = threading.Lock()
        self._connection = sqlite3.connect(self.path, timeout=60, check_same_thread=False)
        with self._lock:
            self._connection.execute("PRAGMA journal_mode=WAL")
            self._connection.execute("CREATE TABLE IF NOT EXISTS entries (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
            self._connection.commit()

    def get_many(self, keys: Iterable[str]) -> dict[str, Any]:
        wanted = list(dict.fromkeys(keys))
        found: dict[str, Any] = {}
        with self._lock:
            # SQLite caps the number of bound parameters per statement
            for start in range(0, len(wanted), 500):
                chunk = wanted[start : start + 500]
                marks = ",".join("?" * len(chunk))
                for key, value in self._connection.execute(
                    f"SELECT key, value FROM entries WHERE key IN ({marks})", chunk
                ):
                    found[key] = json.loads(value)
        return found

    def put_many(self, items: dict[str, Any]) -> None:
        if not items:
            return
        with self._lock:
            self._connection.executemany(
                "INSERT OR REPLACE INTO entries (key, value) VALUES (?, ?)",
                [(key, json.dumps(value)) for key, value in items.items()],
            )
            self._connection.commit()

    def __len__(self) -> int:
        with self._lock:
            return int(self._connection.execute("SELECT COUNT(*) FROM entries").fetchone()[0])

    def close(self) -> None:
        with self._lock:
            self._connection.close()
