"""The queue for verifying written answers: one at a time beside its task's demonstrations and
references, right / wrong / skip, an unverified state that is never counted wrong, every mark kept,
and a second verifier whose agreement with the first is measured."""

from __future__ import annotations

import importlib
import re

import pytest
from django.apps import apps

from annotation.models import BenchmarkAsset
from studies.models import Response, VerificationMark
from studies.participants.answers import responses_verify
from studies.setup.studies import study_create
from tests import personas
from tests.factories import Bot, pid

pytestmark = pytest.mark.django_db

WRITTEN = "Write the word that means the opposite of the input."


@pytest.fixture
def written(instruction_induction, researcher):
    study = study_create(
        name="verify",
        benchmark="instruction_induction",
        owner=researcher,
        design={"tasks_per_participant": 2, "annotators_per_task": 1},
    )
    for n in range(3):
        Bot(study, pid(60 + n)).complete(choose=lambda item: WRITTEN)
    return study, list(Response.objects.filter(participant__study=study).order_by("participant_id", "position"))


def _queue(client, study, **query):
    return client.get(f"/studies/{study.pk}/verify/", query).content.decode()


def _mark(client, study, response, verdict, role="first", state="unverified"):
    return client.post(
        f"/studies/{study.pk}/verify/{response.pk}/mark/", {"verdict": verdict, "role": role, "state": state}
    )


def _shown(page: str) -> int:
    return int(re.search(r'id="queue-answer" data-response="(\d+)"', page).group(1))


def test_unverified_written_answers_are_not_counted_wrong_in_the_answers_list(written, researcher_client):
    study, responses = written
    responses_verify(response_ids=[responses[0].pk], correct=False, user=None)
    responses_verify(response_ids=[responses[1].pk], correct=True, user=None)
    listing = "/admin/studies/response/?participant__study__id__exact={}&correct={}"
    wrong = researcher_client.get(listing.format(study.pk, "no")).content.decode()
    assert wrong.count('class="action-select"') == 1  # the one marked wrong, not the unverified ones
    right = researcher_client.get(listing.format(study.pk, "yes")).content.decode()
    assert right.count('class="action-select"') == 1
    unverified = researcher_client.get(listing.format(study.pk, "unverified")).content.decode()
    assert unverified.count('class="action-select"') == len(responses) - 2
    # the column says unknown for an unverified answer, not a cross
    everything = researcher_client.get(f"/admin/studies/response/?participant__study__id__exact={study.pk}")
    assert 'alt="None"' in everything.content.decode()


def test_the_queue_shows_one_answer_beside_its_demonstrations_and_references(written, researcher_client):
    study, responses = written
    page = _queue(researcher_client, study)
    first = Response.objects.select_related("item").get(pk=_shown(page))
    assert first.pk == responses[0].pk and WRITTEN in page
    task = first.item.meta["task"]
    for _given, expected in first.item.prompt["demonstrations"]:
        assert str(expected).replace("'", "&#x27;") in page
    references = BenchmarkAsset.objects.get(benchmark="instruction_induction", key="references").data[task]
    assert references[0].replace("'", "&#x27;").replace('"', "&quot;") in page
    assert 'data-key="r"' in page and 'data-key="w"' in page and 'data-key="s"' in page
    assert re.search(r'id="state-unverified">Unverified \(<span class="count">6</span>\)', page)


def test_marks_move_on_to_the_next_keep_their_history_and_set_the_answers_mark(written, researcher_client, researcher):
    study, responses = written
    first, second, third = responses[:3]
    moved = _mark(researcher_client, study, first, "right")
    assert f"at={second.pk}" in moved["Location"]
    skipped = _mark(researcher_client, study, second, "skip")
    assert f"at={third.pk}" in skipped["Location"]
    _mark(researcher_client, study, third, "wrong")
    _mark(researcher_client, study, first, "wrong", state="all")  # a re-mark
    first.refresh_from_db()
    assert first.verified_correct is False and first.verified_by == researcher
    history = list(VerificationMark.objects.filter(response=first).values_list("verdict", "verifier", "role"))
    assert history == [("right", researcher.pk, "first"), ("wrong", researcher.pk, "first")]
    assert Response.objects.get(pk=second.pk).verified_correct is None  # skipped: still unverified
    page = _queue(researcher_client, study, state="all", at=first.pk)
    assert re.search(r'id="mark-history">.*?right.*?wrong.*?</ol>', page, re.S)
    assert _shown(_queue(researcher_client, study)) == second.pk  # the first unverified one
    admin_page = researcher_client.get(f"/admin/studies/response/{first.pk}/change/").content.decode()
    assert re.search(
        r"History of marks.*?<ol><li>.*?right</strong></li><li>.*?wrong</strong></li></ol>", admin_page, re.S
    )
    assert (
        f'href="/studies/{study.pk}/verify/" id="verify-link"'
        in researcher_client.get(f"/studies/{study.pk}/").content.decode()
    )
    cleared = _mark(researcher_client, study, third, "clear", state="all")
    assert cleared.status_code == 302 and Response.objects.get(pk=third.pk).verified_correct is None
    assert VerificationMark.objects.filter(response=third).count() == 2  # the mark and its clearing


def test_a_second_verifier_is_kept_apart_and_their_agreement_shown(written, researcher_client, client):
    study, responses = written
    for response, verdict in zip(responses, ["right", "right", "wrong", "wrong"], strict=False):
        _mark(researcher_client, study, response, verdict)
    checker = personas.assistant("checker", on=[study])
    client.force_login(checker)
    page = _queue(client, study, role="second")
    assert _shown(page) == responses[0].pk  # the second verifier's own queue: nothing marked by them
    for response, verdict in zip(responses, ["right", "wrong", "wrong", "wrong"], strict=False):
        _mark(client, study, response, verdict, role="second")
    assert Response.objects.get(pk=responses[1].pk).verified_correct is True  # the first's mark stays
    page = _queue(client, study, role="second")
    # 3 of 4 agree; kappa: po = 0.75, pe = 0.5 * 0.25 + 0.5 * 0.75 = 0.5, so (0.75 - 0.5) / 0.5 = 0.5
    assert "3 of 4 answers marked by both" in page and 'id="agreement-percent">75%' in page
    assert 'id="agreement-kappa">0.50<' in page


def test_only_verifiers_of_the_study_mark_and_only_its_own_answers(written, researcher_client, client):
    study, responses = written
    other = study_create(
        name="other", benchmark="instruction_induction", design={"tasks_per_participant": 2, "annotators_per_task": 1}
    )
    Bot(other, pid(90)).complete(choose=lambda item: WRITTEN)
    foreign = Response.objects.filter(participant__study=other).first()
    assert _mark(researcher_client, study, foreign, "right").status_code == 404
    assert Response.objects.get(pk=foreign.pk).verified_correct is None
    assert researcher_client.get(f"/studies/{other.pk}/verify/").status_code == 404  # not theirs
    reader = personas.assistant("reader", ["studies.view_study", "studies.view_response"], on=[study])
    client.force_login(reader)
    page = client.get(f"/studies/{study.pk}/verify/")
    assert page.status_code == 200 and 'id="mark-form"' not in page.content.decode()
    assert _mark(client, study, responses[0], "right").status_code == 403
    assert Response.objects.get(pk=responses[0].pk).verified_correct is None


def test_the_migration_starts_each_marked_answers_history_with_its_mark(written, researcher):
    study, responses = written
    Response.objects.filter(pk=responses[0].pk).update(verified_correct=True, verified_by=researcher)
    migration = importlib.import_module("studies.migrations.0021_response_verification_marks")
    migration.marks_from_answers(apps, None)
    assert list(VerificationMark.objects.values_list("response", "verdict", "verifier", "role")) == [
        (responses[0].pk, "right", researcher.pk, "first")
    ]


def test_the_queue_reads_in_a_bounded_number_of_queries(written, researcher_client, django_assert_max_num_queries):
    study, responses = written
    _mark(researcher_client, study, responses[0], "right")
    with django_assert_max_num_queries(20):
        assert researcher_client.get(f"/studies/{study.pk}/verify/", {"state": "all"}).status_code == 200


def _list_accuracy(page: str, participant_id: int) -> str:
    """The participant list's accuracy cell of one participant, its words only."""
    row = re.search(rf"<tr>(?:(?!</tr>).)*?/participants/{participant_id}/review/(?:(?!</tr>).)*</tr>", page, re.S)
    cell = re.search(r'class="field-accuracy">(.*?)</td>', row.group(0), re.S).group(1)
    return " ".join(re.sub(r"<[^>]+>", " ", cell).split())


def test_the_participant_list_scores_as_the_review_page_unverified_answers_waiting(written, researcher_client):
    study, responses = written
    first, second = (response.participant for response in responses[:4:2])
    assert responses[1].participant == first and responses[2].participant == second
    responses_verify(response_ids=[responses[0].pk], correct=True, user=None)
    listing = researcher_client.get(f"/admin/studies/participant/?study__id__exact={study.pk}").content.decode()
    for participant, right, scored, waiting in ((first, 1, 1, 1), (second, 0, 0, 2)):
        review = researcher_client.get(f"/studies/{study.pk}/participants/{participant.pk}/review/")
        status = " ".join(re.search(r'id="review-status">(.*?)</p>', review.content.decode(), re.S).group(1).split())
        said = f"{right} of {scored} right" if scored else "no answer scored yet"
        assert f"{said} · {waiting} written answer" in status and "not verified yet" in status
        share = f"{right / scored:.1%}" if scored else "—"
        # the same figures in the list: right of those marked, the others waiting, not counted wrong
        assert _list_accuracy(listing, participant.pk) == f"{share} {waiting} not verified yet"
    # once every written answer is marked, the list shows the share alone
    responses_verify(response_ids=[responses[1].pk], correct=False, user=None)
    listing = researcher_client.get(f"/admin/studies/participant/?study__id__exact={study.pk}").content.decode()
    assert _list_accuracy(listing, first.pk) == "50.0%"
