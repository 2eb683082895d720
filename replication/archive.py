"""The bundle as a file: a zip archive of named files and `manifest.json`, which lists the SHA-256 and
size of every other file. Writing hashes what it writes; reading refuses an archive whose files and
manifest disagree (a changed byte, a file missing from the archive or from the manifest), naming the
file, before anything in it is used.

A zip, not a tarball: every operating system opens one without extra tools, and a reader goes
straight to the manifest and to one file without unpacking the rest. No Django here.
"""

from __future__ import annotations

import hashlib
import io
import json
import zipfile
import zlib
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

MANIFEST = "manifest.json"
#: what `manifest.json` says it is, and the layout version a reader understands
FORMAT = "parity-replication-bundle"
FORMAT_VERSION = 1


class BundleRefused(ValueError):
    """The archive cannot be used: not a bundle, or a file that does not match its manifest."""


def sha256(content: bytes) -> str:
    return hashlib.sha256(content).hexdigest()


def dumps(value: Any) -> bytes:
    """JSON as the bundle stores it: UTF-8, keys in order, no NaN (JSON has none)."""
    return (json.dumps(value, ensure_ascii=False, allow_nan=False, sort_keys=True, indent=1) + "\n").encode()


def jsonl(rows: Any, *, sort_keys: bool = True) -> bytes:
    """One JSON object per line (keys in order, unless the order of a row's keys is itself data)."""
    return "".join(
        json.dumps(row, ensure_ascii=False, allow_nan=False, sort_keys=sort_keys) + "\n" for row in rows
    ).encode()


def manifest_for(files: Mapping[str, bytes], about: Mapping[str, Any]) -> dict[str, Any]:
    return {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        **about,
        "files": {path: {"sha256": sha256(content), "bytes": len(content)} for path, content in sorted(files.items())},
    }


def write_bundle(files: Mapping[str, bytes], about: Mapping[str, Any], *, created: datetime) -> bytes:
    """The archive of `files` (path -> content) with their manifest."""
    if MANIFEST in files:
        raise ValueError(f"{MANIFEST} is written by the bundle itself")
    out = io.BytesIO()
    stamp = (created.year, created.month, created.day, created.hour, created.minute, created.second)
    with zipfile.ZipFile(out, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for path, content in [(MANIFEST, dumps(manifest_for(files, about))), *sorted(files.items())]:
            archive.writestr(zipfile.ZipInfo(path, date_time=stamp), content, compress_type=zipfile.ZIP_DEFLATED)
    return out.getvalue()


@dataclass(frozen=True)
class Bundle:
    """A bundle read and checked: its manifest and every file's content."""

    manifest: dict[str, Any]
    files: dict[str, bytes]

    def json(self, path: str) -> Any:
        return json.loads(self.files[path])

    def jsonl(self, path: str) -> list[Any]:
        return [json.loads(line) for line in self.files[path].decode().splitlines() if line]


def read_bundle(source: Path | bytes) -> Bundle:
    """The bundle's files, each checked against the manifest; `BundleRefused` naming the first file
    that differs from it, is missing, or is not listed in it."""
    try:
        archive = zipfile.ZipFile(io.BytesIO(source) if isinstance(source, bytes) else source)
    except (OSError, zipfile.BadZipFile) as exc:
        raise BundleRefused(f"not a bundle (a zip archive): {exc}") from None
    with archive:
        names = archive.namelist()
        if len(set(names)) != len(names):
            raise BundleRefused("the archive holds a file twice")
        if MANIFEST not in names:
            raise BundleRefused(f"the archive has no {MANIFEST}")
        try:
            manifest = json.loads(archive.read(MANIFEST))
            listed = manifest["files"]
        except (ValueError, KeyError, TypeError, zipfile.BadZipFile) as exc:
            raise BundleRefused(f"{MANIFEST} cannot be read: {exc}") from None
        if manifest.get("format") != FORMAT or manifest.get("format_version") != FORMAT_VERSION:
            raise BundleRefused(f"{MANIFEST} is not a {FORMAT} of version {FORMAT_VERSION}")
        files: dict[str, bytes] = {}
        for name in sorted(set(names) - {MANIFEST}):
            if name not in listed:
                raise BundleRefused(f"{name}: in the archive but not in the manifest")
            try:
                content = archive.read(name)
            except (zipfile.BadZipFile, zlib.error, OSError) as exc:  # a changed byte fails the zip's own CRC first
                raise BundleRefused(f"{name}: cannot be read ({exc})") from None
            if sha256(content) != listed[name].get("sha256"):
                raise BundleRefused(f"{name}: its SHA-256 differs from the manifest's (the file was changed)")
            files[name] = content
    missing = sorted(set(listed) - set(files))
    if missing:
        raise BundleRefused(f"{missing[0]}: in the manifest but missing from the archive")
    return Bundle(manifest=manifest, files=files)
