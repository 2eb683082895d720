"""A bundle cannot exhaust memory: a zip bomb (a small archive listing a huge file of zeros with its
true SHA-256) is refused before a byte of it is inflated; a size other than the manifest's, a name
no bundle holds, and archives past the limits are refused, each naming the file."""

from __future__ import annotations

import hashlib
import io
import json
import tracemalloc
import zipfile
from datetime import UTC, datetime

import pytest

from replication.archive import FORMAT, FORMAT_VERSION, MANIFEST, BundleRefused, Limits, read_bundle, write_bundle
from replication.parts import PART_PATHS

BOMB_BYTES = 64 << 20


def _archive(files: dict[str, bytes], listed: dict[str, dict] | None = None) -> bytes:
    """A zip of `files` with a manifest listing their true hashes and sizes (or `listed`)."""
    manifest = {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "files": listed
        if listed is not None
        else {name: {"sha256": hashlib.sha256(data).hexdigest(), "bytes": len(data)} for name, data in files.items()},
    }
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        archive.writestr(MANIFEST, json.dumps(manifest))
        for name, data in files.items():
            archive.writestr(name, data)
    return out.getvalue()


def test_a_zip_bomb_with_its_true_hash_is_refused_before_it_is_inflated() -> None:
    bomb = _archive({"humans/answers.jsonl": bytes(BOMB_BYTES)})
    assert len(bomb) < BOMB_BYTES // 500
    tracemalloc.start()
    try:
        with pytest.raises(BundleRefused, match="humans/answers.jsonl: inflates .* times .*zip bomb"):
            read_bundle(bomb, known=PART_PATHS)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 4 * len(bomb) + (2 << 20)  # the archive and a chunk, never the inflated file


def test_a_file_whose_size_differs_from_the_manifests_is_refused_before_it_is_read() -> None:
    content = b'{"a": 1}\n' * 100
    listed = {"items/items.jsonl": {"sha256": hashlib.sha256(content).hexdigest(), "bytes": 10}}
    with pytest.raises(BundleRefused, match="items/items.jsonl: 900 bytes, the manifest says 10"):
        read_bundle(_archive({"items/items.jsonl": content}, listed))


def test_a_name_no_bundle_holds_is_refused_even_when_the_manifest_lists_it() -> None:
    archive = write_bundle(
        {"study/settings.json": b"{}\n", "../../etc/cron.d/x": b"* * * * * x\n"}, {}, created=datetime.now(UTC)
    )
    with pytest.raises(BundleRefused, match=r"\.\./\.\./etc/cron.d/x: not a file a bundle holds"):
        read_bundle(archive, known=PART_PATHS)
    assert read_bundle(write_bundle({"study/settings.json": b"{}\n"}, {}, created=datetime.now(UTC)), known=PART_PATHS)


@pytest.mark.parametrize(
    "limits, message",
    [
        (Limits(archive_bytes=100), "the archive has .* bytes, more than 100"),
        (Limits(files=2), "holds 3 files, more than 2"),
        (Limits(file_bytes=1000), "a.txt: 5000 bytes inflated, more than 1000"),
        (Limits(total_bytes=5100), "inflates to .* bytes, more than 5100"),
        (Limits(manifest_bytes=10), "manifest.json: larger than the 10 bytes"),
    ],
)
def test_each_limit_refuses_what_passes_it(limits: Limits, message: str) -> None:
    files = {"a.txt": bytes(range(256)) * 19 + bytes(136), "b.txt": b"b"}
    archive = _archive(files)
    assert read_bundle(archive).files == files
    with pytest.raises(BundleRefused, match=message):
        read_bundle(archive, limits=limits)
