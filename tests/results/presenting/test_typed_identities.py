"""A participant who types their Prolific ID or session id into an answer, in any case, does not put it
in any export, even with free text asked for: the long, wide and participants' exports in every
format, and the API's rows and downloads, withhold it as the replication bundle does."""

from __future__ import annotations

import io
import json

import pyarrow.parquet as pq
import pytest
from knox.models import AuthToken
from rest_framework.test import APIClient

from results.loading.selectors import load_study_data
from results.pipeline import data_export
from results.presenting.exports import FORMATS
from studies.models import Participant, Response, Study
from studies.participants.withholding import WITHHELD, Withholder
from tests.personas import user_with
from tests.results.conftest import AMBI_PIDS

pytestmark = pytest.mark.django_db

#: formats that carry answers (the paper tables carry figures only)
ANSWER_FORMATS = [fmt for fmt in FORMATS if fmt not in {"latex", "markdown"}]


def _text(fmt: str, content: bytes) -> str:
    if fmt == "parquet":
        return pq.read_table(io.BytesIO(content)).to_pandas().to_json()
    return content.decode("utf-8")


@pytest.fixture
def typed(ambi) -> Study:
    """The first AmbiBench participant typed their PID in upper case as an answer, their session id
    in mixed case as a closing answer."""
    study = Study.objects.get(pk=ambi.study_id)
    study.closing_questions = ["feedback"]
    study.save(update_fields=["closing_questions"])
    person = Participant.objects.get(study=study, prolific_pid=AMBI_PIDS[0])
    typed_text = f"my id is {AMBI_PIDS[0].upper()}"
    Response.objects.filter(participant=person, position=1).update(
        raw_answer=typed_text, answer=typed_text, valid=False
    )
    Participant.objects.filter(pk=person.pk).update(closing_answers={"feedback": "session SessionAmbi, thanks"})
    return study


@pytest.mark.parametrize("fmt", ANSWER_FORMATS)
def test_an_identity_typed_in_any_case_is_withheld_from_every_export_with_free_text(typed, fmt) -> None:
    text = _text(fmt, data_export(load_study_data(typed), fmt, include_free_text=True).content)
    for secret in [*AMBI_PIDS, "SESSIONAMBI"]:
        assert secret.lower() not in text.lower()
    assert WITHHELD in text


def test_the_apis_rows_and_downloads_withhold_a_typed_identity(typed) -> None:
    user = user_with("typed-ids")  # a researcher without the identity permission
    typed.collaborators.add(user)
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Token {AuthToken.objects.create(user)[1]}")
    rows = api.get(f"/api/studies/{typed.pk}/responses/", {"include_free_text": "true", "limit": 500}).json()
    answers = [row["raw_answer"] for row in rows["results"]]
    assert f"my id is {WITHHELD}" in answers
    downloads = [
        api.get(f"/api/studies/{typed.pk}/exports/{fmt}/", {"include_free_text": "true"}).content
        for fmt in ("csv", "jsonl", "participants-csv")
    ]
    everything = (json.dumps(rows) + b"".join(downloads).decode()).lower()
    assert AMBI_PIDS[0] not in everything and "sessionambi" not in everything


@pytest.mark.parametrize("others", [0, 2000])  # one regular expression; a look-up by prefix
def test_the_withholder_replaces_each_identity_whole_whatever_its_case(others: int) -> None:
    many = {f"{n:024x}" for n in range(1, others + 1)}
    withholder = Withholder.of({"5f0c1a2b3c4d5e6f7a8b9c01", "abcdefgh", "ABCDEFGH-longer", "short", *many})
    assert withholder.text("5F0C1A2B3C4D5E6F7A8B9C01 and Abcdefgh-LONGER.") == f"{WITHHELD} and {WITHHELD}."
    assert withholder.text("xxabcdefghabcdefgh") == f"xx{WITHHELD}{WITHHELD}" and withholder.text("short") == "short"
    assert withholder.content("ÄabcdefghÜ".encode()) == f"Ä{WITHHELD}Ü".encode()
    assert withholder.text("İ abcdefgh") == f"İ {WITHHELD}"  # lower case lengthens İ: the expression reads it
    assert withholder.cell(12) == 12 and Withholder.of(set()).text("abcdefgh") == "abcdefgh"
    if others:
        assert withholder.by_prefix and withholder.text(f"id {f'{others:024x}'.upper()}") == f"id {WITHHELD}"
