"""An id of each panel's shape never leaves Parity: a participant of Connect, MTurk, SONA or a lab who
types their participant id and their assignment id into a free-text answer, an explanation and a
closing answer finds neither in any export (every format, free text included), the replication
bundle, the API's rows, or any researcher page a view-only collaborator reads (the study page, the
monitor, the results, the answers' and participants' pages, the review page), in any case. SONA's
survey codes are short numbers (2 to 7 digits, https://www.sona-systems.com/researcher/using-the-survey-code-feature/):
they are withheld where they stand as a word of their own."""

from __future__ import annotations

import io
import re

import pyarrow.parquet as pq
import pytest

from parity import panels
from replication.bundles import bundle_files
from results.loading.selectors import load_study_data
from results.pipeline import data_export
from results.presenting.exports import FORMATS
from studies.models import Participant, Response, Study
from studies.participants.withholding import WITHHELD, Withholder, study_withholder
from tests.participation.test_panels import PARAMS, panel_study, walk
from tests.personas import personas_for, signed_in

pytestmark = pytest.mark.django_db

ANSWER_FORMATS = [fmt for fmt in FORMATS if fmt not in {"latex", "markdown"}]
ALL = [panels.CONNECT, panels.MTURK, panels.SONA, panels.LAB]


def _secrets(panel: str) -> list[str]:
    found = panels.get(panel)
    given = PARAMS[panel]
    return [given[name] for name in (found.id_param, found.session_param) if name]


def _planted(panel: str) -> tuple[Study, Participant]:
    study = panel_study(panel, f"planted {panel}", closing_questions=["feedback"])
    walk(study, PARAMS[panel])
    participant = Participant.objects.get(study=study)
    secrets = _secrets(panel)
    typed = " and ".join(f"{secret.upper()} / {secret.lower()}" for secret in secrets)
    first = Response.objects.filter(participant=participant).order_by("position").first()
    Response.objects.filter(pk=first.pk).update(raw_answer=f"my ids: {typed}.", explanation=f"({typed})")
    Participant.objects.filter(pk=participant.pk).update(closing_answers={"feedback": f"I am {typed}"})
    return study, participant


def _leaks(text: str, panel: str) -> list[str]:
    return [
        secret
        for secret in _secrets(panel)
        if re.search(rf"(?<![A-Za-z0-9]){re.escape(secret)}(?![A-Za-z0-9])", text, re.IGNORECASE)
    ]


def _text(fmt: str, content: bytes) -> str:
    if fmt == "parquet":
        return pq.read_table(io.BytesIO(content)).to_pandas().to_json()
    return content.decode("utf-8")


@pytest.mark.parametrize("panel", ALL)
def test_an_id_of_the_panels_shape_is_in_no_export_of_any_format(implicature, panel):
    study, _ = _planted(panel)
    for fmt in ANSWER_FORMATS:
        text = _text(fmt, data_export(load_study_data(study), fmt, include_free_text=True).content)
        assert _leaks(text, panel) == [], fmt
    assert WITHHELD in _text("csv", data_export(load_study_data(study), "csv", include_free_text=True).content)


@pytest.mark.parametrize("panel", ALL)
def test_an_id_of_the_panels_shape_is_in_no_file_of_the_bundle(implicature, panel):
    study, _ = _planted(panel)
    files = bundle_files(study)
    for path, content in files.items():
        assert _leaks(content.decode("utf-8", errors="replace"), panel) == [], path
    assert WITHHELD in files["humans/participants.jsonl"].decode()


@pytest.mark.parametrize("panel", ALL)
def test_an_id_of_the_panels_shape_is_on_no_page_a_view_only_collaborator_reads(implicature, panel):
    study, participant = _planted(panel)
    viewer = signed_in(personas_for(study).viewer)
    responses = Response.objects.filter(participant=participant)
    pages = [
        f"/studies/{study.pk}/",
        f"/studies/{study.pk}/monitor/",
        f"/studies/{study.pk}/results/",
        f"/studies/{study.pk}/participants/{participant.pk}/review/",
        "/admin/studies/participant/",
        f"/admin/studies/participant/{participant.pk}/change/",
        "/admin/studies/response/",
        *(f"/admin/studies/response/{response.pk}/change/" for response in responses),
    ]
    for url in pages:
        page = viewer.get(url)
        assert page.status_code == 200, url
        assert _leaks(page.content.decode(), panel) == [], url


def test_a_short_survey_code_is_withheld_as_a_word_not_inside_another_number(implicature):
    withholder = Withholder.of({"48213", "p-7x"}, short_words=True)
    assert withholder.text("code 48213, not 1482130 or 48213x") == f"code {WITHHELD}, not 1482130 or 48213x"
    assert withholder.text("I am P-7X.") == f"I am {WITHHELD}."
    # Prolific's withholding keeps to whole ids of 8 characters or more, as it always did
    assert Withholder.of({"48213"}).text("48213") == "48213"


def test_a_prolific_studys_withholder_is_what_it_was(implicature):
    from tests.factories import Bot, small_study

    study = small_study("prolific short", units=1, unit_size=3, per_unit=2, attention_checks=0, pid_format="token")
    Bot(study, "abc12", session="S1").complete()
    assert study_withholder(study).text("abc12 S1") == "abc12 S1"


@pytest.mark.parametrize("panel", ALL)
def test_erasing_a_participant_of_any_panel_leaves_none_of_their_ids(implicature, panel):
    from studies.participants.erasure import participant_erase

    study, participant = _planted(panel)
    participant_erase(study=study, prolific_pid=PARAMS[panel][panels.get(panel).id_param])
    participant.refresh_from_db()
    assert participant.erased_at is not None and participant.prolific_session_id == ""
    stored = [participant.prolific_pid, participant.prolific_study_id, str(participant.closing_answers)]
    stored += [f"{r.raw_answer} {r.answer} {r.explanation}" for r in Response.objects.filter(participant=participant)]
    assert _leaks(" ".join(stored), panel) == []
