"""The bundle as a file: a zip archive of named files and `manifest.json`, which lists the SHA-256 and
size of every other file. Writing hashes what it writes; reading refuses an archive whose files and
manifest disagree (a changed byte, a size other than the listed one, a file missing from the archive
or from the manifest, a name no bundle holds), naming the file, before anything in it is used; and
an archive that would inflate past its `Limits` (a zip bomb) before a byte of it is inflated.

A zip, not a tarball: every operating system opens one without extra tools, and a reader goes
straight to the manifest and to one file without unpacking the rest. No Django here.
"""

from __future__ import annotations

import hashlib
import io
import json
import stat
import zipfile
import zlib
from collections.abc import Collection, Mapping
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
        return parsed(path, self.files[path])

    def jsonl(self, path: str) -> list[Any]:
        lines = text_of(path, self.files[path]).splitlines()
        return [parsed(f"{path} line {number}", line) for number, line in enumerate(lines, start=1) if line]


def text_of(name: str, content: bytes) -> str:
    """A file's text: a bundle writes UTF-8 only, so anything else (another encoding, a zip inside
    the zip) is refused, naming the file and the first byte that is not."""
    try:
        return content.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise BundleRefused(f"{name}: not UTF-8 text (byte {exc.start} is not)") from None


def _not_a_number(word: str) -> Any:
    raise ValueError(f"{word} is not a number JSON has (a bundle never writes one)")


def parsed(name: str, content: bytes | str) -> Any:
    """JSON as a bundle writes it (`dumps`): UTF-8, no NaN or Infinity, nested no deeper than Python's
    parser goes; anything else is refused naming the file (or the line of a JSON-lines file)."""
    text = text_of(name, content) if isinstance(content, bytes) else content
    try:
        return json.loads(text, parse_constant=_not_a_number)
    except RecursionError:
        raise BundleRefused(f"{name}: nested too deeply to be a bundle's JSON") from None
    except ValueError as exc:  # not JSON, NaN, a whole number of more digits than Python reads
        raise BundleRefused(f"{name}: not JSON as a bundle writes it ({exc})") from None


@dataclass(frozen=True)
class Limits:
    """What a bundle may hold before a byte of it is inflated: a zip names each file's sizes, so an
    archive that inflates far beyond its own size (a zip bomb) is refused before it is read, and a
    file is read in chunks, hashed as it comes, and dropped as soon as it passes what the manifest
    says it is."""

    #: the archive itself
    archive_bytes: int = 1 << 30
    #: the files inflated, all together
    total_bytes: int = 2 << 30
    #: one file inflated
    file_bytes: int = 1 << 30
    #: inflated / compressed, for one file: JSON lines of a study deflate some 5 to 20 times, a run
    #: of zeros a thousand times
    ratio: int = 100
    #: the manifest inflated (it lists a few dozen files)
    manifest_bytes: int = 1 << 20
    #: files in the archive
    files: int = 200


LIMITS = Limits()
CHUNK = 1 << 20


def _size(source: Path | bytes) -> int:
    return len(source) if isinstance(source, bytes) else source.stat().st_size


def _inflated(archive: zipfile.ZipFile, info: zipfile.ZipInfo, *, most: int, digest: Any = None) -> bytes:
    """`info`'s content, read in chunks and hashed into `digest` as it comes; refused as soon as it
    passes `most` bytes or its ratio, whatever the archive's directory claims."""
    chunks: list[bytes] = []
    read = 0
    try:
        with archive.open(info) as handle:
            while chunk := handle.read(CHUNK):
                read += len(chunk)
                if read > most:
                    raise BundleRefused(f"{info.filename}: larger than the {most} bytes it may be")
                if digest is not None:
                    digest.update(chunk)
                chunks.append(chunk)
    except (zipfile.BadZipFile, zlib.error, OSError, EOFError) as exc:  # a changed byte fails the CRC first
        raise BundleRefused(f"{info.filename}: cannot be read ({exc})") from None
    return b"".join(chunks)


def _check_sizes(info: zipfile.ZipInfo, limits: Limits) -> None:
    if info.file_size > limits.file_bytes:
        raise BundleRefused(f"{info.filename}: {info.file_size} bytes inflated, more than {limits.file_bytes}")
    if info.file_size > limits.ratio * max(info.compress_size, 1):
        raise BundleRefused(
            f"{info.filename}: inflates {info.file_size // max(info.compress_size, 1)} times its compressed "
            f"size, more than {limits.ratio} (a zip bomb?)"
        )


def read_bundle(source: Path | bytes, *, known: Collection[str] | None = None, limits: Limits = LIMITS) -> Bundle:
    """The bundle's files, each checked against the manifest; `BundleRefused` naming the first file
    that differs from it, is missing, or is not listed in it; with `known`, a file of another name
    too. Sizes and ratios are checked (`Limits`) before anything is inflated, the manifest's byte
    count of each file before it is read, and its SHA-256 as it is read."""
    try:
        size = _size(source)
    except OSError as exc:
        raise BundleRefused(f"not a bundle (a zip archive): {exc}") from None
    if size > limits.archive_bytes:
        raise BundleRefused(f"the archive has {size} bytes, more than {limits.archive_bytes}")
    try:
        archive = zipfile.ZipFile(io.BytesIO(source) if isinstance(source, bytes) else source)
    except (OSError, zipfile.BadZipFile) as exc:
        raise BundleRefused(f"not a bundle (a zip archive): {exc}") from None
    with archive:
        infos = archive.infolist()
        names = [info.filename for info in infos]
        if len(infos) > limits.files:
            raise BundleRefused(f"the archive holds {len(infos)} files, more than {limits.files}")
        if len(set(names)) != len(names):
            raise BundleRefused("the archive holds a file twice")
        if MANIFEST not in names:
            raise BundleRefused(f"the archive has no {MANIFEST}")
        by_name = {info.filename: info for info in infos}
        for info in infos:
            _check_sizes(info, limits)
            kind = stat.S_IFMT(info.external_attr >> 16)
            if info.is_dir() or kind not in (0, stat.S_IFREG):
                # a link's content is the path it points to, never a bundle's file
                raise BundleRefused(f"{info.filename}: a link or a folder, not a file")
        total = sum(info.file_size for info in infos)
        if total > limits.total_bytes:
            raise BundleRefused(f"the archive inflates to {total} bytes, more than {limits.total_bytes}")
        try:
            manifest = parsed(MANIFEST, _inflated(archive, by_name[MANIFEST], most=limits.manifest_bytes))
            listed = manifest["files"]
            if not isinstance(listed, dict) or not all(isinstance(entry, dict) for entry in listed.values()):
                raise TypeError("its files are not a mapping of names to their hashes and sizes")
        except BundleRefused:
            raise
        except (ValueError, KeyError, TypeError) as exc:
            raise BundleRefused(f"{MANIFEST} cannot be read: {exc}") from None
        if manifest.get("format") != FORMAT or manifest.get("format_version") != FORMAT_VERSION:
            raise BundleRefused(f"{MANIFEST} is not a {FORMAT} of version {FORMAT_VERSION}")
        files: dict[str, bytes] = {}
        for name in sorted(set(names) - {MANIFEST}):
            if name not in listed:
                raise BundleRefused(f"{name}: in the archive but not in the manifest")
            if known is not None and name not in known:
                raise BundleRefused(f"{name}: not a file a bundle holds")
            info, expected = by_name[name], listed[name].get("bytes")
            if not isinstance(expected, int) or info.file_size != expected:
                raise BundleRefused(f"{name}: {info.file_size} bytes, the manifest says {expected}")
            digest = hashlib.sha256()
            content = _inflated(archive, info, most=min(expected, limits.file_bytes), digest=digest)
            if len(content) != expected:
                raise BundleRefused(f"{name}: {len(content)} bytes, the manifest says {expected}")
            if digest.hexdigest() != listed[name].get("sha256"):
                raise BundleRefused(f"{name}: its SHA-256 differs from the manifest's (the file was changed)")
            files[name] = content
    missing = sorted(set(listed) - set(files))
    if missing:
        raise BundleRefused(f"{missing[0]}: in the manifest but missing from the archive")
    return Bundle(manifest=manifest, files=files)
