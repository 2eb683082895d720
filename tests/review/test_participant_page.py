"""The review page of one participant: every answer in context with its evidence, the flags with
their figures, the Prolific submission, decision and bonus; exclude and include with a reason, and
the next flagged participant, the participant list's filters kept throughout."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from urllib.parse import quote

import pytest
from freezegun import freeze_time

from annotation.models import Item
from prolific.models import BonusBatch, BonusLine, ProlificStudy, ProlificSubmission
from studies.models import Participant, Response, StudyEvent
from tests import personas
from tests.factories import Bot, pid, small_study

pytestmark = pytest.mark.django_db

T0 = datetime(2026, 3, 2, 10, 0, tzinfo=UTC)
FILTERS = "study__id__exact=1&flag=any"


def _figures(**given: int) -> dict[str, str]:
    figures = {"pastes": 0, "blurs": 0, "hidden": 0, "hidden_ms": 0, "first_input_ms": 800, **given}
    return {f"behaviour-{name}": str(value) for name, value in figures.items()} | {"behaviour-keys": ""}


def _walk(study, n: int, *, away: bool) -> Participant:
    """A participant answering every item with its gold, 4 s each; the first one with the page
    hidden for 12 s when `away`."""
    with freeze_time(T0 + timedelta(hours=n)) as clock:
        bot = Bot(study, pid(n)).start_items()
        first = True
        while bot.participant.step == Participant.Step.ITEMS:
            item_id, position = bot.current_form(bot.step().content.decode())
            clock.tick(timedelta(seconds=4 if not (away and first) else 20))
            gold = Item.objects.get(pk=item_id).gold
            fields = _figures(hidden=1, hidden_ms=12000, blurs=1) if away and first else _figures()
            bot.post("answer", {"item": item_id, "position": position, "answer": gold, **fields})
            first = False
    return bot.participant


@pytest.fixture
def reviewed(implicature, researcher):
    study = small_study("review", units=1, unit_size=4, per_unit=3, attention_checks=1, owner=researcher)
    away = _walk(study, 1, away=True)
    honest = _walk(study, 2, away=False)
    other_away = _walk(study, 3, away=True)
    return study, away, honest, other_away


def _url(participant, filters: str = "") -> str:
    url = f"/studies/{participant.study_id}/participants/{participant.pk}/review/"
    return f"{url}?_changelist_filters={quote(filters)}" if filters else url


def test_every_answer_shows_in_order_with_its_item_gold_outcome_time_and_evidence(reviewed, researcher_client):
    study, away, _honest, _other = reviewed
    page = researcher_client.get(_url(away)).content.decode()
    responses = list(Response.objects.filter(participant=away).select_related("item").order_by("position"))
    assert len(responses) == 5  # 4 items and 1 attention check
    rows = re.findall(r'<tr class="[^"]*" data-position="(\d+)">(.*?)</tr>', page, re.S)
    assert [int(position) for position, _ in rows] == [1, 2, 3, 4, 5]
    for (_position, row), response in zip(rows, responses, strict=True):
        assert response.item.gold in row and response.item.key in row
        assert "right" in row  # answered with the gold
    first = rows[0][1]
    # the evidence read from the answer's stored record, in words, not JSON
    assert "page hidden 1× for 12.0 s" in first and "1 focus losses" in first and "20.0 s" in first
    assert '"hidden_ms"' not in page and "{&#x27;" not in page
    prompt_words = next(v for v in responses[0].item.prompt.values() if isinstance(v, str))
    assert prompt_words.strip()[:40] in page.replace("&#x27;", "'").replace("&quot;", '"')


def test_the_flags_show_with_their_figures_and_the_prolific_side_read_only(reviewed, researcher_client):
    study, away, honest, _other = reviewed
    found = ProlificStudy.objects.create(study=study, prolific_id="p-review", places=3)
    ProlificSubmission.objects.create(
        prolific_study=found,
        submission_id="s" * 24,
        prolific_pid=away.prolific_pid,
        participant=away,
        status="APPROVED",
        study_code="DONE1",
        decision="approve",
        decided_at=T0,
        decision_sent_at=T0,
    )
    batch = BonusBatch.objects.create(prolific_study=found, total_pence=40, state=BonusBatch.State.PAID)
    BonusLine.objects.create(batch=batch, participant=away, prolific_pid=away.prolific_pid, amount_pence=40)
    page = researcher_client.get(_url(away)).content.decode()
    flags = re.search(r'<section id="review-flags">(.*?)</section>', page, re.S).group(1)
    assert "the page was hidden during 1 of 5 answers, 12.0 s in all; 1 focus losses" in flags
    prolific = re.search(r'<section id="review-prolific">(.*?)</section>', page, re.S).group(1)
    assert "APPROVED" in prolific and "approve" in prolific and "£0.40" in prolific and "Paid" in prolific
    assert away.prolific_pid not in page and "s" * 24 not in page  # no identity on the page
    calm = researcher_client.get(_url(honest)).content.decode()
    assert "No flag." in calm and "No Prolific submission recorded." in calm and "Bonus: none" in calm


def test_exclude_and_include_with_a_reason_keep_the_lists_filters(reviewed, researcher_client, researcher):
    study, away, _honest, _other = reviewed
    decide = f"/studies/{study.pk}/participants/{away.pk}/review/decide/"
    refused = researcher_client.post(decide, {"decision": "exclude", "reason": " ", "_changelist_filters": FILTERS})
    assert refused.status_code == 302 and not Participant.objects.get(pk=away.pk).excluded
    done = researcher_client.post(
        decide, {"decision": "exclude", "reason": "left the tab for the first item", "_changelist_filters": FILTERS}
    )
    assert done.status_code == 302 and done["Location"] == _url(away, FILTERS)
    away.refresh_from_db()
    assert away.excluded and away.exclusion_reason == "left the tab for the first item"
    page = researcher_client.get(done["Location"]).content.decode()
    assert 'data-excluded="yes"' in page and "left the tab for the first item" in page
    assert f'href="/admin/studies/participant/?{FILTERS.replace("&", "&amp;")}"' in page  # back to the same list
    researcher_client.post(decide, {"decision": "include", "_changelist_filters": FILTERS})
    assert not Participant.objects.get(pk=away.pk).excluded
    kinds = list(StudyEvent.objects.filter(study=study).values_list("kind", "actor"))
    assert kinds[-2:] == [(StudyEvent.Kind.EXCLUDED, researcher.pk), (StudyEvent.Kind.INCLUDED, researcher.pk)]


def test_next_flagged_skips_those_without_a_flag_and_carries_the_filters(reviewed, researcher_client):
    study, away, honest, other = reviewed
    page = researcher_client.get(_url(away, FILTERS)).content.decode()
    following = re.search(r'id="next-flagged" href="([^"]+)"', page).group(1).replace("&amp;", "&")
    assert following == _url(other, FILTERS)  # the honest one between them has no flag
    back = researcher_client.get(_url(other)).content.decode()
    assert re.search(r'id="next-flagged" href="([^"]+)"', back).group(1) == _url(away)  # round again


def test_the_participant_list_and_page_link_to_the_review_page_with_the_filters(reviewed, researcher_client):
    study, away, _honest, _other = reviewed
    listing = researcher_client.get(f"/admin/studies/participant/?study__id__exact={study.pk}").content.decode()
    filters = quote(f"study__id__exact={study.pk}", safe="")
    assert f'href="{_url(away)}?_changelist_filters={filters}" class="review-link"' in listing
    change = researcher_client.get(f"/admin/studies/participant/{away.pk}/change/").content.decode()
    assert f'href="{_url(away)}" id="review-page-link"' in change


def test_only_the_studys_researchers_see_it_and_only_those_allowed_decide(reviewed, client):
    study, away, _honest, _other = reviewed
    url, decide = _url(away), f"/studies/{study.pk}/participants/{away.pk}/review/decide/"
    assert client.get(url).status_code == 302  # to the sign-in page
    client.force_login(personas.researcher("outsider"))
    assert client.get(url).status_code == 404
    client.force_login(personas.member())
    assert client.get(url).status_code == 403
    viewer = personas.assistant("viewer", ["studies.view_study", "studies.view_participant", "studies.view_response"])
    study.collaborators.add(viewer)
    client.force_login(viewer)
    page = client.get(url)
    assert page.status_code == 200 and 'id="exclude-button"' not in page.content.decode()
    assert client.post(decide, {"decision": "exclude", "reason": "no"}).status_code == 403
    assert client.get(decide).status_code == 405
    assert not Participant.objects.get(pk=away.pk).excluded
    other = small_study("someone else's")
    assert client.get(f"/studies/{other.pk}/participants/{away.pk}/review/").status_code == 404


def test_the_page_reads_in_a_bounded_number_of_queries(reviewed, researcher_client, django_assert_max_num_queries):
    _study, away, _honest, _other = reviewed
    with django_assert_max_num_queries(22):
        assert researcher_client.get(_url(away, FILTERS)).status_code == 200
