"""The bundle's download on the results page: for those who may export the study, as the exports;
scripted participants' timings and flags go in, their Prolific identities never."""

from __future__ import annotations

import io
import zipfile
from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from django.urls import reverse

from parity.preregistration_plan import sha256_of
from replication.archive import read_bundle
from results.computing.tree import StudyResults
from results.pipeline import study_checklist
from results.presenting.report import render_report
from results.presenting.report.materials import study_materials
from studies.models import Preregistration, Study
from studies.participants.decisions import participants_exclude
from studies.participants.quality import participant_flags
from tests.factories import Bot, pid, small_study
from tests.personas import personas_for, user_with

pytestmark = pytest.mark.django_db


@pytest.fixture
def study(implicature):
    made = small_study("bundle pilot", unit_size=5, units=1, per_unit=2, attention_checks=1, exclude_at=2)
    for number in (1, 2):
        Bot(made, pid(0xB0 + number), session=f"{0x5E55 + number:024x}").complete()
    return made


def test_the_results_page_links_the_bundle_and_it_downloads_as_a_checked_zip(client, study) -> None:
    people = personas_for(study)
    client.force_login(people.owner)
    url = reverse("replication:bundle", args=[study.pk])
    assert url in client.get(reverse("results:study", args=[study.pk])).content.decode()
    response = client.get(url)
    assert response.status_code == 200 and response["Content-Type"] == "application/zip"
    assert 'filename="bundle-pilot-replication.zip"' in response["Content-Disposition"]
    bundle = read_bundle(response.content)
    participants = bundle.jsonl("humans/participants.jsonl")
    assert [row["pseudonym"] for row in participants] == ["A1", "A2"]
    by_id = participant_flags(study.participants.all())
    flags = {person.pseudonym: by_id.get(person.pk, []) for person in study.participants.all()}
    assert flags["A1"] and {row["pseudonym"]: row["flags"] for row in participants} == flags
    assert all(row["completed_after_us"] > 0 for row in participants)
    assert all(row["completed_day"] >= row["started_day"] >= 0 for row in participants)
    answers = bundle.jsonl("humans/answers.jsonl")
    assert len(answers) == 12 and sum(row["is_attention_check"] for row in answers) == 2
    assert all(row["answered_after_ms"] >= row["shown_after_ms"] >= 0 for row in answers)
    with zipfile.ZipFile(io.BytesIO(response.content)) as archive:
        contents = b"".join(archive.read(name) for name in archive.namelist())
    for value in (pid(0xB1), pid(0xB2), f"{0x5E56:024x}", f"{0x5E57:024x}", study.link, study.completion_code):
        assert value.encode() not in contents


def test_only_those_who_may_export_the_study_download_its_bundle(client, study) -> None:
    people = personas_for(study)
    url = reverse("replication:bundle", args=[study.pk])
    assert client.get(url).status_code == 302  # to the sign-in page
    for user, status in (
        (people.collaborator, 200),
        (people.superuser, 200),
        (people.viewer, 403),  # sees the study, may not export it
        (people.outsider, 404),  # not their study: as if it did not exist
        (user_with("member", ()), 403),
    ):
        client.force_login(user)
        assert client.get(url).status_code == status, user
    client.force_login(people.owner)
    assert client.post(url).status_code == 405
    assert client.get(reverse("replication:bundle", args=[study.pk + 1000])).status_code == 404


def test_a_bundle_is_loaded_into_an_empty_database_only(client, study, tmp_path) -> None:
    path = tmp_path / "pilot.zip"
    call_command("bundle", study.name, "--out", str(path), stdout=StringIO())
    with pytest.raises(CommandError, match="empty database only"):
        call_command("load_bundle", str(path), stdout=StringIO())
    assert Study.objects.count() == 1


def test_the_bundle_carries_the_frozen_preregistration_and_what_departed_from_it(client, study) -> None:
    people = personas_for(study)
    frozen = Preregistration.objects.get(study=study)
    excluded = study.participants.order_by("pk").first()
    participants_exclude(participant_ids=[excluded.pk], reason="typed nonsense", actor=people.owner)
    client.force_login(people.owner)
    bundle = read_bundle(client.get(reverse("replication:bundle", args=[study.pk])).content)
    plan = bundle.json("preregistration/preregistration.json")
    # the frozen document hashes to the frozen hash: a reader can check the plan was not changed
    assert plan["sha256"] == frozen.sha256 == sha256_of(plan["document"])
    assert frozen.sha256 in bundle.files["preregistration/preregistration.md"].decode()
    assert frozen.sha256 in bundle.files["preregistration/preregistration.html"].decode()
    departures = bundle.json("preregistration/deviations.json")
    assert [row["kind"] for row in departures["deviations"]] == ["excluded"]
    assert [row["kind"] for row in departures["audit"]][-1] == "excluded"


def test_the_bundle_carries_the_report_written_from_its_own_analysis_output(client, study) -> None:
    client.force_login(personas_for(study).owner)
    bundle = read_bundle(client.get(reverse("replication:bundle", args=[study.pk])).content)
    analysis = bundle.json("analysis/study_results.json")
    tree = StudyResults.from_json(analysis)
    checklist = study_checklist(study, tree)
    for fmt, path in (
        ("markdown", "analysis/report.md"),
        ("latex", "analysis/report.tex"),
        ("html", "analysis/report.html"),
    ):
        # with the study's consent form and instructions, read from the study as it is
        assert bundle.files[path].decode() == render_report(
            tree, fmt, checklist, study.public_title, study_materials(study)
        )
    assert "\\begin{document}" in bundle.files["analysis/report.tex"].decode()
    assert "\\bfseries Reporting checklist" in bundle.files["analysis/report.tex"].decode()
    assert bundle.files["analysis/references.bib"].decode().startswith("@misc{parity,")


def test_an_identity_typed_in_upper_case_into_an_answer_is_withheld_from_the_bundle(client, study) -> None:
    from studies.models import Response

    person = study.participants.get(prolific_pid=pid(0xB1))
    Response.objects.filter(participant=person, position=1).update(raw_answer=f"ID {pid(0xB1).upper()}")
    client.force_login(personas_for(study).owner)
    bundle = read_bundle(client.get(reverse("replication:bundle", args=[study.pk])).content)
    typed = [row["raw_answer"] for row in bundle.jsonl("humans/answers.jsonl") if row["raw_answer"].startswith("ID ")]
    assert typed == ["ID [withheld]"]
    assert pid(0xB1).upper().encode() not in b"".join(bundle.files.values())


def test_loading_refuses_a_file_no_bundle_holds_even_when_the_manifest_lists_it(study, tmp_path) -> None:
    import hashlib
    import json

    from replication.archive import MANIFEST

    path = tmp_path / "pilot.zip"
    call_command("bundle", study.name, "--out", str(path), stdout=StringIO())
    with zipfile.ZipFile(path) as archive:
        files = {name: archive.read(name) for name in archive.namelist()}
    files["humans/extra.py"] = b"print('hello')\n"
    manifest = json.loads(files[MANIFEST])
    manifest["files"]["humans/extra.py"] = {"sha256": hashlib.sha256(files["humans/extra.py"]).hexdigest(), "bytes": 15}
    files[MANIFEST] = json.dumps(manifest).encode()
    added = tmp_path / "added.zip"
    with zipfile.ZipFile(added, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for name, content in files.items():
            archive.writestr(name, content)
    with pytest.raises(CommandError, match="refused: humans/extra.py: not a file a bundle holds"):
        call_command("load_bundle", str(added), stdout=StringIO())
