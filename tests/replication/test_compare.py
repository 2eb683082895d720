"""Comparing figures (floats within 1e-9, the rest exactly) and withholding identity strings."""

from __future__ import annotations

import io
import zipfile
from datetime import UTC, date, datetime, timedelta

import pytest

from replication.archive import BundleRefused, read_bundle, write_bundle
from replication.compare import MISSING, compare
from replication.services import loaded_start as load_start
from studies.participants.withholding import WITHHELD, withhold


def test_floats_agree_within_the_tolerance_and_everything_else_exactly() -> None:
    bundled = {"mean": 0.5, "n": 3, "label": "A1", "ci": [0.1, 0.9], "ok": True, "none": None}
    same = {"mean": 0.5 + 5e-10, "n": 3, "label": "A1", "ci": [0.1, 0.9 - 1e-10], "ok": True, "none": None}
    result = compare(bundled, same)
    assert result.reproduced and result.figures == 7

    differing = {"mean": 0.5 + 2e-9, "n": 3.0, "label": "A2", "ci": [0.1], "ok": 1, "none": 0, "new": 1}
    found = {d.path: (d.bundled, d.recomputed) for d in compare(bundled, differing).differences}
    assert found == {
        "$.mean": (0.5, 0.5 + 2e-9),
        "$.n": (3, 3.0),  # a count is an int: 3.0 is not reproduced
        "$.label": ("A1", "A2"),
        "$.ci[1]": (0.9, MISSING),
        "$.ok": (True, 1),
        "$.none": (None, 0),
        "$.new": (MISSING, 1),
    }


def test_identity_strings_are_withheld_wherever_they_appear() -> None:
    text = b'{"raw_answer": "my id is 5f0c1a2b3c4d5e6f7a8b9c01", "session": "S5f0c1a2b3c4d5e6f7a8b9c02"}'
    out = withhold(text, {"5f0c1a2b3c4d5e6f7a8b9c01", "5f0c1a2b3c4d5e6f7a8b9c02"})
    assert b"5f0c" not in out and out.count(WITHHELD.encode()) == 2
    assert withhold(text, set()) == text


def test_a_written_bundle_reads_back_and_a_changed_or_unlisted_file_is_refused() -> None:
    archive = write_bundle({"a.json": b"{}\n", "b/c.txt": b"text"}, {"study": "s"}, created=datetime.now(UTC))
    bundle = read_bundle(archive)
    assert bundle.files == {"a.json": b"{}\n", "b/c.txt": b"text"} and bundle.manifest["study"] == "s"

    def rewritten(**files: bytes) -> bytes:
        out = io.BytesIO()
        with zipfile.ZipFile(io.BytesIO(archive)) as source, zipfile.ZipFile(out, "w") as target:
            for name in source.namelist():
                target.writestr(name, files.pop(name.replace("/", "_").replace(".", "_"), source.read(name)))
            for name, content in files.items():
                target.writestr(name, content)
        return out.getvalue()

    with pytest.raises(BundleRefused, match="b/c.txt: its SHA-256 differs"):
        read_bundle(rewritten(b_c_txt=b"texT"))
    with pytest.raises(BundleRefused, match="d.txt: in the archive but not in the manifest"):
        read_bundle(rewritten(**{"d.txt": b""}))
    with pytest.raises(BundleRefused, match="not a bundle"):
        read_bundle(b"not a zip")


def test_a_loaded_start_keeps_the_days_and_the_duration_of_one_who_worked_past_midnight() -> None:
    first_day = datetime(2026, 11, 24, tzinfo=UTC)
    # started at 23:50 on the study's second day, done 20 minutes later, on the third
    row = {"started_day": 1, "completed_day": 2, "completed_after_us": 20 * 60 * 1_000_000}
    started = load_start(first_day, row)
    completed = started + timedelta(microseconds=row["completed_after_us"])
    assert (started.date(), completed.date()) == (date(2026, 11, 25), date(2026, 11, 26))
    # one who finished on the day they began keeps both on it
    same = {"started_day": 0, "completed_day": 0, "completed_after_us": 5 * 60 * 1_000_000}
    assert load_start(first_day, same) == first_day
