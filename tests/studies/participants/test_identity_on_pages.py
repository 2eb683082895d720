"""A participant may type their Prolific ID into an answer, an explanation or a closing answer, and a
researcher may paste one into an exclusion's reason. A view-only collaborator (no
`studies.view_identity`) walks every page that shows these (the answers' list, its search, an
answer's page, the participants' list and pages, the review page) and finds the ID nowhere, in
upper or lower case, and the answers' search finds nothing by it (no oracle); a holder of the
permission reads the answers as typed."""

from __future__ import annotations

import re

import pytest

from prolific.models import ProlificStudy, ProlificSubmission
from replication.bundles import bundle_files
from studies.models import Participant, Response, Study
from studies.setup.studies import study_create
from tests.factories import Bot, small_study
from tests.personas import personas_for, signed_in, user_with

pytestmark = pytest.mark.django_db

PID = "5f0c1a2b3c4d5e6f7a8b9c0d"
SESSION = "ab12cd34ef56ab78cd90ef12"


@pytest.fixture
def planted(implicature):
    """A study whose participant's id is in every free text, in upper and in lower case."""
    study = small_study("planted", status=Study.Status.LIVE, units=1, unit_size=3, per_unit=2, attention_checks=0)
    people = personas_for(study)
    Bot(study, PID, session=SESSION).complete()
    participant = Participant.objects.get(study=study)
    responses = list(Response.objects.filter(participant=participant).order_by("position"))
    Response.objects.filter(pk=responses[0].pk).update(
        raw_answer=f"my id is {PID.upper()}", answer=PID.lower(), explanation=f"see {SESSION.upper()}"
    )
    Response.objects.filter(pk=responses[1].pk).update(
        raw_answer=PID.lower(), extra={"typed": PID.upper(), **responses[1].extra}
    )
    Participant.objects.filter(pk=participant.pk).update(
        excluded=True,
        exclusion_reason=f"typed {PID.upper()} into an answer",
        closing_answers={"comments": f"I am {PID.lower()}"},
    )
    return study, people, participant, responses


def _pages(study: Study, participant: Participant, responses: list[Response]) -> list[str]:
    return [
        "/admin/studies/response/",
        f"/admin/studies/response/?participant__study__id__exact={study.pk}",
        *(f"/admin/studies/response/{response.pk}/change/" for response in responses),
        "/admin/studies/participant/",
        f"/admin/studies/participant/{participant.pk}/change/",
        f"/studies/{study.pk}/participants/{participant.pk}/review/",
    ]


def _identities_in(html: str) -> list[str]:
    return re.findall(f"{PID}|{SESSION}", html, re.IGNORECASE)


def test_a_view_only_collaborator_finds_no_identity_on_any_page(planted):
    study, people, participant, responses = planted
    viewer = signed_in(people.viewer)
    for url in _pages(study, participant, responses):
        page = viewer.get(url)
        assert page.status_code == 200, url
        assert _identities_in(page.content.decode()) == [], url


@pytest.mark.parametrize("typed", [PID[:6], PID[:6].upper(), PID, "my id is"])
def test_the_answers_search_is_no_oracle_of_an_identity(planted, typed):
    _, people, _, _ = planted
    page = signed_in(people.viewer).get("/admin/studies/response/", {"q": typed})
    assert page.status_code == 200
    assert page.context["cl"].result_count == 0


def test_a_holder_of_the_identity_permission_reads_the_answers_as_typed(planted):
    study, people, participant, responses = planted
    holder = user_with("holder", ["studies.view_identity", "studies.view_response", "studies.view_participant"])
    study.collaborators.add(holder)
    html = signed_in(holder).get(f"/admin/studies/response/{responses[0].pk}/change/").content.decode()
    assert f"my id is {PID.upper()}" in html
    found = signed_in(holder).get("/admin/studies/response/", {"q": PID[:6]})
    assert found.context["cl"].result_count == 2  # both answers that hold it, in either case


def test_an_explanation_shows_on_the_review_and_admin_pages_withheld_only_from_a_viewer(planted):
    study, people, participant, _ = planted
    holder = user_with("holder", ["studies.view_identity", "studies.view_response", "studies.view_participant"])
    study.collaborators.add(holder)
    pages = (
        f"/studies/{study.pk}/participants/{participant.pk}/review/",
        f"/admin/studies/participant/{participant.pk}/change/",
    )
    for url in pages:
        assert f"see {SESSION.upper()}" in signed_in(holder).get(url).content.decode(), url
        assert "see [withheld]" in signed_in(people.viewer).get(url).content.decode(), url


def test_the_verification_queue_shows_a_written_answer_without_the_id_typed_into_it(instruction_induction):
    study = study_create(
        name="verify planted",
        benchmark="instruction_induction",
        design={"tasks_per_participant": 1, "annotators_per_task": 1},
    )
    people = personas_for(study)
    Bot(study, PID, session=SESSION).complete(choose=lambda item: f"Reverse the word. {PID.upper()}")
    written = Response.objects.filter(participant__study=study, is_attention_check=False).first()
    page = signed_in(people.viewer).get(f"/studies/{study.pk}/verify/", {"at": written.pk}).content.decode()
    assert 'id="written-answer">Reverse the word. [withheld]<' in page
    assert _identities_in(page) == []


def test_a_submission_id_of_someone_who_never_entered_is_withheld_from_a_reason_and_the_bundle(planted):
    study, people, participant, _ = planted
    found = ProlificStudy.objects.create(study=study, prolific_id="6a6b6c6d6e6f707172737475", places=2)
    never_entered = "65aa11bb22cc33dd44ee55ff"
    ProlificSubmission.objects.create(
        prolific_study=found, submission_id=never_entered, prolific_pid="77aa88bb99cc00dd11ee22ff", status="RETURNED"
    )
    Participant.objects.filter(pk=participant.pk).update(exclusion_reason=f"same person as {never_entered.upper()}")
    page = signed_in(people.viewer).get(f"/admin/studies/participant/{participant.pk}/change/").content.decode()
    assert never_entered not in page.lower() and "same person as [withheld]" in page
    files = bundle_files(study)
    assert never_entered not in files["humans/participants.jsonl"].decode().lower()
    assert "same person as [withheld]" in files["humans/participants.jsonl"].decode()
