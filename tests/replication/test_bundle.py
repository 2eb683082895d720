"""The replication bundle of the published implicature study with a model run: what it holds, that
it leaks no Prolific identity, that a fresh database reproduces every figure, and that a changed byte
or a doctored figure is caught."""

from __future__ import annotations

import hashlib
import json
import zipfile
from collections.abc import Callable
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from modelruns.prompts import item_prompts
from replication.archive import MANIFEST, read_bundle
from studies.models import Study
from tests.replication.conftest import Bundled

pytestmark = [pytest.mark.slow, pytest.mark.django_db]


def _rewrite(source: Path, target: Path, change: Callable[[dict[str, bytes]], None], *, rehash: bool) -> Path:
    """A copy of the bundle with `change` made to its files; `rehash`: its manifest made to match."""
    with zipfile.ZipFile(source) as archive:
        files = {name: archive.read(name) for name in archive.namelist()}
    change(files)
    if rehash:
        manifest = json.loads(files[MANIFEST])
        manifest["files"] = {
            name: {"sha256": hashlib.sha256(content).hexdigest(), "bytes": len(content)}
            for name, content in files.items()
            if name != MANIFEST
        }
        files[MANIFEST] = json.dumps(manifest).encode()
    with zipfile.ZipFile(target, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for name, content in files.items():
            archive.writestr(name, content)
    return target


def _reanalyse(path: Path) -> tuple[str, CommandError | None]:
    out = StringIO()
    try:
        call_command("reanalyse", str(path), stdout=out)
    except CommandError as exc:
        return out.getvalue(), exc
    return out.getvalue(), None


def test_the_bundle_holds_the_study_the_people_and_the_model_run(bundled: Bundled) -> None:
    bundle = read_bundle(bundled.path)
    assert set(bundle.manifest["files"]) == set(bundle.files) and MANIFEST not in bundle.files
    people = bundle.jsonl("humans/participants.jsonl")
    assert [row["pseudonym"] for row in people] == [f"A{n}" for n in range(1, 21)]
    answers = bundle.jsonl("humans/answers.jsonl")
    assert len(answers) == 3000 and {"duration_ms", "shown_after_ms", "answered_after_ms"} <= set(answers[0])
    items = {row["key"]: row for row in bundle.jsonl("items/as_participants_saw.jsonl")}
    assert len(items) == 600 and all(
        row["html"] and row["shown"]["text"] in _unescaped(row["html"]) for row in items.values()
    )
    (run,) = bundle.json("models/runs.json")
    assert run["status"] == "done" and run["engine_version"] and run["model_identity"]["model_id"]
    assert run["spec"]["dtype"] == "float32" and run["seeds"] == {"shots_seed": 0}
    model_answers = bundle.jsonl("models/answers.jsonl")
    assert len(model_answers) == 600 and {row["item"] for row in model_answers} == set(items)
    prompts = bundle.jsonl("models/prompts.jsonl")
    assert len(prompts) == 600 and all(
        row["kind"] == "choice" and [text["continuation"] for text in row["texts"]] == [" yes", " no"]
        for row in prompts
    )
    # the texts `manage.py show_prompt` prints for the item under the run's setting
    shown = item_prompts(
        item=prompts[7]["request"], study=Study.objects.get(pk=bundled.study_id), setting=run["setting"]
    )
    assert [text["text"] for text in prompts[7]["texts"]] == [text.text for text in shown.prompts[0].texts]
    analysis = bundle.json("analysis/study_results.json")
    assert analysis["human"]["n_annotators"] == 20 and len(analysis["models"]) == 1
    software = bundle.json("software.json")
    assert software["packages"]["Django"] and ("commit" in software["parity"] or "version" in software["parity"])
    assert bundle.files["study/consent.txt"] and bundle.files["study/instructions.txt"]


def test_the_bundle_answers_the_reporting_checklist_from_its_analysis(bundled: Bundled) -> None:
    bundle = read_bundle(bundled.path)
    analysis = bundle.json("analysis/study_results.json")
    checklist = bundle.json("analysis/checklist.json")
    assert len(checklist["entries"]) == 71 and sum(checklist["counts"].values()) == 71
    answers = {row["id"]: row for row in checklist["entries"]}
    people = analysis["methods"]["participants"]
    # the published study's people analysed, not the import's entered/completed counts as the original study's
    assert people["entered"] == 20
    assert answers["1.1"]["text"].startswith("20 people analysed: those whose answers the original study published")
    assert answers["1.1"]["records"] == {"human.n_annotators": 20, "study.is_imported": True}
    assert answers["0.10"]["text"].startswith("1 answer per item per run (1 run: ")
    assert "| 1.1 | How many human baseliners took part | Yes — 20 people analysed" in (
        bundle.files["analysis/checklist.md"].decode()
    )


def _unescaped(html: str) -> str:
    return (
        html.replace("&quot;", '"')
        .replace("&#x27;", "'")
        .replace("&amp;", "&")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
    )


def test_no_file_of_the_bundle_holds_a_prolific_id_study_id_or_session_id(bundled: Bundled) -> None:
    with zipfile.ZipFile(bundled.path) as archive:
        files = {name: archive.read(name) for name in archive.namelist()}
    assert len(bundled.identities) == 20
    for identity in bundled.identities:
        for value in identity:
            assert len(value) == 24
            found = [name for name, content in files.items() if value.encode() in content]
            assert found == [], f"{value} is in {found}"


def test_a_fresh_database_reproduces_every_figure(bundled: Bundled) -> None:
    output, error = _reanalyse(bundled.path)
    assert error is None, output
    assert output.startswith("reproduced:") and "figures of 'Ruis et al. human baseline'" in output


def test_a_bundle_with_one_changed_byte_is_refused_naming_the_file(bundled: Bundled, tmp_path: Path) -> None:
    def one_byte(files: dict[str, bytes]) -> None:
        content = bytearray(files["humans/answers.jsonl"])
        content[100] = ord("X") if content[100] != ord("X") else ord("Y")
        files["humans/answers.jsonl"] = bytes(content)

    changed = _rewrite(bundled.path, tmp_path / "changed.zip", one_byte, rehash=False)
    output, error = _reanalyse(changed)
    assert error is not None and "humans/answers.jsonl" in str(error) and "SHA-256" in str(error)
    assert "reproduced" not in output

    # one byte of the archive itself, inside the compressed data of one file
    raw = bytearray(bundled.path.read_bytes())
    with zipfile.ZipFile(bundled.path) as archive:
        info = archive.getinfo("items/items.jsonl")
    start = info.header_offset + 30 + len(info.filename.encode()) + len(info.extra)
    raw[start + info.compress_size // 2] ^= 0xFF
    flipped = tmp_path / "flipped.zip"
    flipped.write_bytes(bytes(raw))
    _, error = _reanalyse(flipped)
    assert error is not None and "items/items.jsonl" in str(error)


def test_a_file_missing_from_the_archive_or_from_the_manifest_is_refused(bundled: Bundled, tmp_path: Path) -> None:
    missing = _rewrite(
        bundled.path, tmp_path / "missing.zip", lambda files: files.pop("models/answers.jsonl"), rehash=False
    )
    _, error = _reanalyse(missing)
    assert error is not None and "models/answers.jsonl" in str(error) and "missing" in str(error)

    def add(files: dict[str, bytes]) -> None:
        files["humans/extra.jsonl"] = b"{}\n"

    added = _rewrite(bundled.path, tmp_path / "added.zip", add, rehash=False)
    _, error = _reanalyse(added)
    assert error is not None and "humans/extra.jsonl" in str(error) and "not in the manifest" in str(error)


def test_a_doctored_figure_with_a_matching_manifest_is_reported_as_differing(bundled: Bundled, tmp_path: Path) -> None:
    analysis = read_bundle(bundled.path).json("analysis/study_results.json")
    true_mean, true_answers = analysis["human"]["accuracy"]["mean"], analysis["human"]["n_answers"]

    def doctor(files: dict[str, bytes]) -> None:
        doctored = json.loads(files["analysis/study_results.json"])
        doctored["human"]["accuracy"]["mean"] = true_mean + 0.01
        doctored["human"]["n_answers"] = true_answers + 1
        files["analysis/study_results.json"] = json.dumps(doctored).encode()

    output, error = _reanalyse(_rewrite(bundled.path, tmp_path / "doctored.zip", doctor, rehash=True))
    assert error is not None and "not reproduced: 2 of" in str(error)
    lines = output.splitlines()
    assert f"differs: $.human.accuracy.mean bundled {true_mean + 0.01!r} recomputed {true_mean!r}" in lines
    assert f"differs: $.human.n_answers bundled {true_answers + 1} recomputed {true_answers}" in lines
