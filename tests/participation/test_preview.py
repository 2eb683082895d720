"""The researcher's preview: the study walked as a participant, attention checks and AmbiBench
feedback included, kept in the session only: no participant, answer or count anywhere."""

from __future__ import annotations

import json
from html import unescape

import pytest
from django.test import Client

from studies.models import Participant, Response, Study
from tests import personas
from tests.annotation.helpers import ambibench_study, answered_labels, import_ambibench
from tests.factories import Bot, pid, small_study
from tests.studies.workflow.helpers import ITEM_FIELD, POSITION_FIELD, Previewer

pytestmark = pytest.mark.django_db


@pytest.fixture
def live_study(implicature, researcher):
    return small_study(
        "previewed",
        owner=researcher,
        units=1,
        unit_size=3,
        per_unit=2,
        attention_checks=2,
        exclude_at=2,
        failed_attention_code="FAILEDCHECKS",
    )


def test_a_preview_walks_consent_instructions_items_and_checks_and_stores_nothing(researcher_client, live_study):
    finished = Bot(live_study, pid(1))
    finished.complete()
    before = (
        Participant.objects.count(),
        Response.objects.count(),
        Study.objects.get(pk=live_study.pk).pseudonyms_issued,
    )
    walker = Previewer(researcher_client, live_study)
    html = walker.start_items()
    assert 'id="preview-banner"' in html and "nothing is stored or counted" in html
    seen_checks = 0
    while 'id="item-area"' in html:
        is_check = 'id="preview-attention-check"' in html
        seen_checks += is_check
        # every attention check failed: the preview shows the exclusion and the failed-check code
        html = walker.answer(html, lambda item: "no" if item.is_attention_check else item.gold)
    assert seen_checks == 2
    assert "5 answers given, 2 attention checks failed" in html and "would be <strong>excluded</strong>" in html
    assert 'id="preview-code">FAILEDCHECKS<' in html
    after = (
        Participant.objects.count(),
        Response.objects.count(),
        Study.objects.get(pk=live_study.pk).pseudonyms_issued,
    )
    assert after == before


def test_results_exports_and_the_api_do_not_count_a_preview(researcher_client, live_study):
    Bot(live_study, pid(1)).complete()
    walker = Previewer(researcher_client, live_study)
    html = walker.start_items()
    while 'id="item-area"' in html:
        html = walker.answer(html, lambda item: item.gold)
    results = researcher_client.get(f"/studies/{live_study.pk}/results/").context["results"]
    assert results.human.n_annotators == 1 and results.human.n_answers == 3
    export = researcher_client.get(f"/studies/{live_study.pk}/export/csv/").content.decode()
    rows = export.strip().splitlines()[1:]
    assert len(rows) == 5 and all(",A1," in row for row in rows)  # one annotator's 3 items and 2 checks
    api = researcher_client.get(f"/api/studies/{live_study.pk}/participants/")
    assert [row["pseudonym"] for row in json.loads(api.content)["results"]] == ["A1"]
    assert researcher_client.get(f"/api/studies/{live_study.pk}/responses/").json()["count"] == 5


def test_a_refused_answer_is_said_and_a_replayed_one_ignored(researcher_client, live_study):
    walker = Previewer(researcher_client, live_study)
    html = walker.start_items()
    token, position = ITEM_FIELD.search(html).group(1), POSITION_FIELD.search(html).group(1)
    refused = walker.post("answer", {"item": token, "position": position, "answer": "maybe"})
    assert "Please choose one of the answers." in refused and f'name="position" value="{position}"' in refused
    walker.post("answer", {"item": token, "position": position, "answer": "yes"})
    again = walker.post("answer", {"item": token, "position": position, "answer": "yes"})
    assert 'name="position" value="2"' in again  # the replay did not count as a second answer


def test_declining_consent_in_the_preview_shows_what_a_participant_is_asked(researcher_client, live_study):
    walker = Previewer(researcher_client, live_study)
    walker.page()
    html = walker.post("consent", {"agree": "no"})
    assert "The participant declined consent" in html
    html = walker.post("restart", {})
    assert 'id="consent"' in html


def test_the_ambibench_preview_shows_each_correct_label_after_the_answer(researcher_client, researcher):
    import_ambibench()
    study = ambibench_study("ambibench preview")
    Study.objects.filter(pk=study.pk).update(owner=researcher)
    walker = Previewer(researcher_client, study)
    html = walker.start_items()
    golds = []
    for _ in range(3):
        # a wrong answer each time: the correct label is what the page shows
        html = walker.answer(html, lambda item: golds.append(item.gold) or ("y" if item.gold == "X" else "x"))
    assert [label for _, label in answered_labels(html)] == golds
    assert not Participant.objects.exists() and not Response.objects.exists()


def test_who_may_preview(live_study):
    people = personas.personas_for(live_study)
    url = f"/studies/{live_study.pk}/preview/"
    assert personas.signed_in(people.outsider).get(url).status_code == 404
    assert personas.signed_in(personas.member()).get(url).status_code == 403
    assert Client().get(url).status_code == 302
    for person in (people.owner, people.collaborator, people.viewer):
        assert personas.signed_in(person).get(url).status_code == 200
    assert personas.signed_in(people.outsider).post(f"{url}consent/", {"agree": "yes"}).status_code == 404
    assert unescape(live_study.consent_text[:20]) in unescape(
        personas.signed_in(people.owner).get(url).content.decode()
    )


def test_with_htmx_the_next_item_swaps_in_and_the_end_is_a_page_of_its_own(researcher_client, live_study):
    walker = Previewer(researcher_client, live_study)
    html = walker.start_items()
    while True:
        token, position = ITEM_FIELD.search(html).group(1), POSITION_FIELD.search(html).group(1)
        item = walker.item(html)
        response = researcher_client.post(
            f"{walker.base}answer/",
            {"item": token, "position": position, "answer": item.gold},
            HTTP_HX_REQUEST="true",
        )
        if "HX-Redirect" in response:
            break
        html = response.content.decode()
        assert html.lstrip().startswith('<section id="item-area"')  # the partial, not a page
    assert response["HX-Redirect"] == walker.base and position == "5"
    assert "End of the study" in walker.page()


def test_the_preview_ends_with_the_closing_questions_to_read_only(researcher_client, live_study):
    live_study.closing_questions = ["ai_tool", "feedback"]
    live_study.save(update_fields=["closing_questions"])
    walker = Previewer(researcher_client, live_study)
    html = walker.start_items()
    while 'id="item-area"' in html:
        html = walker.answer(html, lambda item: item.gold)
    assert 'id="closing-questions"' in html and "Did you use an AI tool" in html
    assert html.count("disabled") >= 5, "every choice and the text box are for reading only"
    assert 'name="gender"' not in html
