"""`load_bundle` refuses a malformed bundle with one message naming the file, never a traceback, and
writes nothing: a manifest nested 60,000 deep, a zip or Latin-1 text where JSON lines belong, a link
in the archive, a NaN or a 1e23 where a count belongs, a field missing. A bundle's manifest only
says its files are as written, so each of these is written with a manifest that matches it.

A property-based test (hypothesis) then mutates a real bundle's files (a value replaced by any JSON
value, a field dropped, a file replaced by any bytes or text, a file cut short) and checks that
reading and loading it either succeeds or refuses, never raises anything else."""

from __future__ import annotations

import hashlib
import io
import json
import stat
import zipfile
from io import StringIO
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import transaction
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from annotation.models import BenchmarkAsset, Item
from modelruns.models import ModelSpec
from replication.archive import FORMAT, FORMAT_VERSION, MANIFEST, BundleRefused, read_bundle
from replication.bundles import bundle_files
from replication.parts import PART_PATHS
from replication.reanalysis import REFUSED
from replication.services import LoadRefused, bundle_load
from studies.models import Participant, Response, Study, Unit, UnitItem
from tests.factories import Bot, pid, small_study

pytestmark = pytest.mark.django_db
ANSWERS = "humans/answers.jsonl"
#: examples of the property-based test: every kind of mutation many times, in well under a minute
EXAMPLES = 500
#: the files `bundle_load` reads (the others are the bundle's record, read by people and `reanalyse`)
LOADED = [
    "study/settings.json",
    "study/consent.txt",
    "study/instructions.txt",
    "items/items.jsonl",
    "humans/participants.jsonl",
    "humans/answers.jsonl",
    "models/runs.json",
    "models/answers.jsonl",
]


@pytest.fixture
def files(implicature) -> dict[str, bytes]:
    """A small study's bundle (two people, three items each), then a database emptied of studies and
    items, as `load_bundle` wants one (the test's rollback brings them back)."""
    study = small_study("malformed", status=Study.Status.LIVE, units=1, unit_size=3, per_unit=2, attention_checks=0)
    for n in (1, 2):
        Bot(study, pid(n)).complete()
    found = bundle_files(study)
    for model in (Response, Participant, UnitItem, Unit, Study, Item, BenchmarkAsset, ModelSpec):
        model.objects.all().delete()
    return found


def _archive(files: dict[str, bytes], *, manifest: bytes | None = None, links: frozenset[str] = frozenset()) -> bytes:
    """A zip of `files` with a manifest of their true hashes and sizes (or the bytes `manifest`);
    the names in `links` are stored as symbolic links (their content: the path they point to)."""
    listed = {name: {"sha256": hashlib.sha256(data).hexdigest(), "bytes": len(data)} for name, data in files.items()}
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        archive.writestr(
            MANIFEST, manifest or json.dumps({"format": FORMAT, "format_version": FORMAT_VERSION, "files": listed})
        )
        for name, data in files.items():
            info = zipfile.ZipInfo(name)
            if name in links:
                info.external_attr = (stat.S_IFLNK | 0o777) << 16
            archive.writestr(info, data)
    return out.getvalue()


def _load(tmp_path: Path, archive: bytes) -> str:
    """`manage.py load_bundle`'s refusal: its message (and that it exits as a refusal)."""
    path = tmp_path / "bundle.zip"
    path.write_bytes(archive)
    with pytest.raises(CommandError) as refused:
        call_command("load_bundle", str(path), stdout=StringIO())
    assert refused.value.returncode == REFUSED
    assert not Study.objects.exists() and not Item.objects.exists()
    return str(refused.value)


def _rows(content: bytes) -> list[dict[str, Any]]:
    return [json.loads(line) for line in content.decode().splitlines()]


def _lines(rows: list[Any]) -> bytes:
    return "".join(json.dumps(row) + "\n" for row in rows).encode()


def _answers_with(files: dict[str, bytes], **changes: Any) -> dict[str, bytes]:
    rows = _rows(files[ANSWERS])
    rows[0].update(changes)
    return {**files, ANSWERS: _lines(rows)}


def test_the_small_bundle_loads_as_it_is(files, tmp_path):
    path = tmp_path / "bundle.zip"
    path.write_bytes(_archive(files))
    out = StringIO()
    call_command("load_bundle", str(path), stdout=out)
    assert "Loaded 'malformed' (2 participants)." in out.getvalue()
    assert Response.objects.count() == 6


def test_a_manifest_nested_60000_deep_is_refused(files, tmp_path):
    deep = b"[" * 60_000 + b"]" * 60_000
    assert (
        _load(tmp_path, _archive(files, manifest=deep))
        == "refused: manifest.json: nested too deeply to be a bundle's JSON"
    )


def test_a_zip_where_the_answers_belong_is_refused_as_not_text(files, tmp_path):
    message = _load(tmp_path, _archive({**files, ANSWERS: _archive(files)}))
    assert message.startswith(f"refused: {ANSWERS}: not UTF-8 text (byte ")


def test_answers_in_latin_1_are_refused_as_not_utf_8(files, tmp_path):
    latin = files[ANSWERS].decode().replace('"answer": "', '"answer": "café ', 1).encode("latin-1")
    assert "not UTF-8 text" in _load(tmp_path, _archive({**files, ANSWERS: latin}))


def test_a_link_in_the_archive_is_refused_before_it_is_read(files, tmp_path):
    linked = {**files, ANSWERS: b"/etc/passwd"}
    assert _load(tmp_path, _archive(linked, links=frozenset({ANSWERS}))) == (
        f"refused: {ANSWERS}: a link or a folder, not a file"
    )


def test_a_nan_position_is_refused_naming_the_line(files, tmp_path):
    nan = files[ANSWERS].decode().replace('"position": 1,', '"position": NaN,', 1).encode()
    assert nan != files[ANSWERS]
    assert _load(tmp_path, _archive({**files, ANSWERS: nan})) == (
        f"refused: {ANSWERS} line 1: not JSON as a bundle writes it (NaN is not a number JSON has (a bundle never "
        "writes one))"
    )


@pytest.mark.parametrize("position", [1e23, 2**63, -1, "first", None])
def test_a_position_no_column_holds_is_refused_naming_the_file(files, tmp_path, position):
    message = _load(tmp_path, _archive(_answers_with(files, position=position)))
    assert message.startswith(f"refused: {ANSWERS}: ") and message.endswith("; nothing was loaded")


def test_a_missing_field_and_an_unknown_item_are_refused_naming_them(files, tmp_path):
    rows = _rows(files[ANSWERS])
    del rows[0]["position"]
    assert _load(tmp_path, _archive({**files, ANSWERS: _lines(rows)})) == (
        f"refused: {ANSWERS}: no 'position' (a field missing, or a name no other file of the bundle gives); "
        "nothing was loaded"
    )
    assert "no 'nowhere/1'" in _load(tmp_path, _archive(_answers_with(files, item="nowhere/1")))


JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**80), max_value=2**80)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(max_size=12),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
    max_leaves=6,
)


def mutated(draw: Any, files: dict[str, bytes]) -> bytes:
    """A bundle with one file changed as a careless or hostile writer would, its manifest matching."""
    name = draw(st.sampled_from([*LOADED, MANIFEST]) | st.sampled_from(sorted(files)))
    kind = draw(st.sampled_from(["value", "drop", "bytes", "text", "cut"]))
    if name == MANIFEST:
        return _archive(files, manifest=draw(st.binary(min_size=1, max_size=300)))
    content = files[name]
    if kind in ("value", "drop") and name.endswith((".json", ".jsonl")):
        lines = (content.decode().splitlines() if name.endswith(".jsonl") else [content.decode()]) or ["{}"]
        at = draw(st.integers(min_value=0, max_value=len(lines) - 1))
        row = json.loads(lines[at])
        if isinstance(row, dict) and row:
            key = draw(st.sampled_from(sorted(row)))
            if kind == "drop":
                del row[key]
            else:
                row[key] = draw(JSON_VALUES)
        else:
            row = draw(JSON_VALUES)
        lines[at] = json.dumps(row)  # NaN and Infinity as Python writes them
        content = "\n".join(lines).encode()
    elif kind == "bytes":
        content = draw(st.binary(max_size=300))
    elif kind == "text":
        content = draw(st.text(max_size=300)).encode()
    else:
        content = content[: draw(st.integers(min_value=0, max_value=max(len(content) - 1, 0)))]
    return _archive({**files, name: content})


def test_no_mutation_of_a_bundle_gets_past_the_reader_as_a_traceback(files):
    outcomes = {"loaded": 0, "refused": 0}

    @settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck), database=None)
    @given(data=st.data())
    def read_and_load(data: st.DataObject) -> None:
        archive = mutated(data.draw, files)
        with transaction.atomic():
            try:
                bundle_load(bundle=read_bundle(archive, known=PART_PATHS))
                outcomes["loaded"] += 1
            except (BundleRefused, LoadRefused) as exc:
                assert str(exc)
                outcomes["refused"] += 1
            transaction.set_rollback(True)

    read_and_load()
    assert sum(outcomes.values()) >= EXAMPLES and outcomes["refused"] > EXAMPLES // 3, outcomes
    print(f"\nbundle fuzz: {outcomes}")
