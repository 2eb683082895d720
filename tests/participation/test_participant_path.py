from __future__ import annotations

import re

import pytest

from annotation.models import Item
from parity.benchmarks.implicature.parsing import shown_text
from studies.models import Participant, Response, Study
from studies.setup.studies import study_create
from tests.factories import Bot, entry_url, form_item, pid, small_study

pytestmark = pytest.mark.django_db


def test_a_scripted_participant_walks_the_paper_design_to_the_prolific_redirect(implicature):
    study = study_create(name="paper design", benchmark="implicature")
    assert [u.unit_items.count() for u in study.units.all()] == [150] * 4
    bot = Bot(study, pid(1))
    done = bot.complete()
    participant = bot.participant
    assert participant.status == Participant.Status.COMPLETED and participant.answered == 153
    responses = Response.objects.filter(participant=participant)
    assert responses.count() == 153 and responses.filter(is_attention_check=True).count() == 3
    assert sorted(responses.values_list("position", flat=True)) == list(range(1, 154))
    assert all(r.correct for r in responses)
    html = done.content.decode()
    redirect = f"https://app.prolific.com/submissions/complete?cc={study.completion_code}"
    assert redirect in html and f'content="4;url={redirect}"' in html
    # the three attention checks sit at per-participant random positions
    other = Bot(study, pid(2))
    other.enter()
    checks = set(Item.objects.filter(is_attention_check=True).values_list("id", flat=True))

    def positions(seq):
        return [i for i, item_id in enumerate(seq) if item_id in checks]

    assert positions(participant.sequence) != positions(other.participant.sequence)


def test_time_from_shown_to_answered_is_recorded_on_the_server(implicature):
    study = small_study()
    bot = Bot(study, pid(3))
    bot.start_items()
    bot.step()
    shown = bot.participant.current_shown_at
    bot.step()  # a refresh does not restart the clock
    assert bot.participant.current_shown_at == shown
    bot.answer_current()
    response = Response.objects.get(participant=bot.participant, position=1)
    assert response.shown_at == shown and response.answered_at >= shown
    assert response.duration_ms == int((response.answered_at - shown).total_seconds() * 1000)


def _start(study: Study, n: int) -> Bot:
    bot = Bot(study, pid(n))
    bot.start_items()
    return bot


def test_double_submit_replay_earlier_item_refresh_and_back_store_one_answer_each(implicature):
    study = small_study()
    bot = _start(study, 4)
    item_id, position = bot.current_form(bot.step().content.decode())
    gold = Item.objects.get(pk=item_id).gold
    flipped = "no" if gold == "yes" else "yes"
    first = {"item": item_id, "position": position, "answer": gold}
    bot.post("answer", first)
    bot.post("answer", first)  # double click
    bot.post("answer", {**first, "answer": flipped})  # replay with a changed answer
    bot.post("answer", first, HTTP_HX_REQUEST="true")  # the same through htmx
    bot.client.get(f"/s/{study.link}/step/")  # refresh
    bot.client.get(entry_url(study, bot.pid))  # back to the entry link
    stored = Response.objects.filter(participant=bot.participant)
    assert stored.count() == 1 and stored.get().answer == gold
    # answer item 2, then try to re-answer item 1 from an old tab
    bot.answer_current()
    bot.post("answer", {**first, "answer": flipped})
    assert stored.count() == 2 and stored.get(position=1).answer == gold
    assert bot.participant.answered == 2
    # a forged answer to a future item is ignored too
    future = bot.participant.sequence[4]
    bot.post("answer", {"item": future, "position": 5, "answer": "yes"})
    assert stored.count() == 2


def test_a_value_outside_the_choices_is_refused_with_a_message_and_nothing_stored(implicature):
    study = small_study()
    bot = _start(study, 5)
    item_id, position = bot.current_form(bot.step().content.decode())
    page = bot.post("answer", {"item": item_id, "position": position, "answer": "perhaps"})
    assert "Please choose one of the answers." in page.content.decode()
    assert not Response.objects.filter(participant=bot.participant).exists()


def test_htmx_swaps_the_item_and_progress_and_the_last_answer_redirects(implicature):
    study = small_study(unit_size=2, attention_checks=1)
    bot = _start(study, 6)
    for _ in range(2):
        item_id, position = bot.current_form(bot.step().content.decode())
        partial = bot.client.post(
            f"/s/{study.link}/answer/",
            {
                "item": form_item(bot.participant.pk, position, item_id),
                "answer": Item.objects.get(pk=item_id).gold,
                "position": position,
            },
            HTTP_HX_REQUEST="true",
        )
        html = partial.content.decode()
        assert html.lstrip().startswith('<section id="item-area"') and "<html" not in html
        assert f"{position + 1} of 3" in html
    item_id, position = bot.current_form(bot.step().content.decode())
    last = bot.client.post(
        f"/s/{study.link}/answer/",
        {"item": form_item(bot.participant.pk, position, item_id), "position": position, "answer": "yes"},
        HTTP_HX_REQUEST="true",
    )
    assert last.headers["HX-Redirect"] == f"/s/{study.link}/step/"
    assert bot.participant.status == Participant.Status.COMPLETED


def test_an_htmx_fragments_form_posted_natively_is_accepted(implicature):
    """A key pressed before htmx has taken a swapped-in form submits it as a plain form: the
    fragment carries its own CSRF field, so that answer is stored as any no-JS answer is."""
    study = small_study(unit_size=3, attention_checks=0)
    bot = _start(study, 8)
    bot.client.handler.enforce_csrf_checks = True
    page = bot.step().content.decode()
    token = re.search(r'"X-CSRFToken": "([^"]+)"', page).group(1)
    item_id, position = bot.current_form(page)
    fragment = bot.client.post(
        f"/s/{study.link}/answer/",
        {"item": form_item(bot.participant.pk, position, item_id), "position": position, "answer": "yes"},
        HTTP_HX_REQUEST="true",
        HTTP_X_CSRFTOKEN=token,
    ).content.decode()
    field = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', fragment)
    assert 'id="item-area"' in fragment and field
    item_id, position = bot.current_form(fragment)
    native = bot.client.post(
        f"/s/{study.link}/answer/",
        {
            "item": form_item(bot.participant.pk, position, item_id),
            "position": position,
            "answer": "yes",
            "csrfmiddlewaretoken": field.group(1),
        },
    )
    assert native.status_code == 302
    assert Response.objects.filter(participant=bot.participant).count() == 2


def _without_csrf_tokens(html: str) -> str:
    # a CSRF token is 64 random letters and digits, which spell any short word now and then ("gold"
    # one page in some 27,000): it says nothing of the item
    html = re.sub(r'name="csrfmiddlewaretoken" value="[^"]*"', "", html)
    return re.sub(r'"X-CSRFToken": "[^"]*"', "", html)


def _strip_item_specifics(html: str, item: Item) -> str:
    # the texts as the page shows them (a Windows line break read as one, none at the ends)
    for text in (shown_text(item.prompt["utterance"]), shown_text(item.prompt["response"])):
        html = html.replace(text, "").replace(text.replace('"', "&quot;"), "")
        html = html.replace(text.replace("'", "&#x27;"), "").replace(text.replace("&", "&amp;"), "")
    html = re.sub(r'name="(item|position)" value="[^"]*"', "", html)
    html = re.sub(r"\d+ of \d+|aria-valuenow=\"\d+\"|width: \d+%|<title>.*</title>", "", html)
    return html


def test_no_gold_reaches_the_browser_before_the_answer_is_stored(implicature):
    """Pages of yes-items and no-items are identical once the item's own words are removed."""
    study = small_study(unit_size=20, units=1, attention_checks=0)
    bot = _start(study, 7)
    skeletons = {"yes": set(), "no": set()}
    while bot.participant.step == Participant.Step.ITEMS:
        participant = bot.participant
        item = Item.objects.get(pk=participant.sequence[participant.answered])
        for html in (
            bot.step().content.decode(),
            bot.client.get(f"/s/{study.link}/step/", HTTP_HX_REQUEST="true").content.decode(),
        ):
            html = _without_csrf_tokens(html)
            assert item.meta["implicature"] not in html
            assert "gold" not in html.lower()
            skeletons[item.gold].add(_strip_item_specifics(html, item))
        bot.answer_current()
    assert skeletons["yes"] and skeletons["no"]
    assert skeletons["yes"] == skeletons["no"]


@pytest.mark.parametrize(
    "query, problem",
    [
        ("", "has no Prolific ID"),
        ("?STUDY_ID=abc&SESSION_ID=def", "PROLIFIC_PID is missing"),
        ("?PROLIFIC_PID=", "PROLIFIC_PID is missing"),
        ("?PROLIFIC_PID=<script>alert(1)</script>", "PROLIFIC_PID must be"),
        ("?PROLIFIC_PID=" + "a" * 65, "PROLIFIC_PID"),
        ("?PROLIFIC_PID=5f0c1a2b3c4d5e6f7a8b9c0d&SESSION_ID=bad%20id", "SESSION_ID must be"),
    ],
)
def test_malformed_links_get_a_clear_page_and_write_nothing(implicature, client, query, problem):
    study = small_study()
    response = client.get(f"/s/{study.link}/{query}")
    assert response.status_code == 400
    assert problem in response.content.decode()
    assert "<script>alert" not in response.content.decode()
    assert not Participant.objects.exists()


def test_an_unknown_study_link_is_a_404_and_a_step_without_session_is_explained(implicature, client):
    assert client.get("/s/no-such-study/?PROLIFIC_PID=abc").status_code == 404
    study = small_study()
    page = client.get(f"/s/{study.link}/step/")
    assert page.status_code == 400 and "open the study again from Prolific" in page.content.decode()
    assert client.post(f"/s/{study.link}/answer/", {"item": 1, "position": 1, "answer": "yes"}).status_code == 400


def test_wrong_methods_are_refused(implicature, client):
    study = small_study()
    assert client.get(f"/s/{study.link}/answer/").status_code == 405
    assert client.put(f"/s/{study.link}/", {}).status_code == 405
    assert client.post(f"/s/{study.link}/", {}).status_code == 400  # the start form, without a PID


def test_another_participants_answers_cannot_be_posted_from_this_browser(implicature):
    study = small_study()
    first, second = _start(study, 8), _start(study, 9)
    item_id, position = first.current_form(first.step().content.decode())
    second.post(
        "answer", {"item": form_item(first.participant.pk, position, item_id), "position": position, "answer": "yes"}
    )
    assert not Response.objects.filter(participant=first.participant).exists()


def test_the_same_pid_resumes_and_a_finished_pid_sees_its_code(implicature):
    study = small_study()
    bot = _start(study, 10)
    bot.answer_current()
    fresh = Bot(study, bot.pid)  # another browser, same Prolific ID
    fresh.enter()
    assert fresh.participant.pk == bot.participant.pk
    assert 'value="2"' in fresh.step().content.decode()
    bot.complete()
    again = Bot(study, bot.pid).enter().content.decode()
    assert "You have already completed this study" in again and study.completion_code in again
    assert Participant.objects.filter(study=study).count() == 1


def test_declining_consent_asks_to_return_with_its_own_code(implicature):
    study = small_study(no_consent_code="NOCONSENT")
    bot = Bot(study, pid(11))
    bot.enter()
    page = bot.post("consent", {"agree": "no"}).content.decode()
    assert "return" in page and "NOCONSENT" in page
    assert bot.participant.status == Participant.Status.DECLINED
    bot.post("begin", {})
    assert bot.participant.step == Participant.Step.DECLINED


def test_a_participant_of_another_study_in_the_group_is_politely_refused(implicature):
    first = small_study("first", group="implicature-2026")
    second = small_study("second", group="implicature-2026")
    browser = Bot(first, pid(12))
    browser.enter()
    page = Bot(second, pid(12), client=browser.client).enter().content.decode()
    assert "already taken part" in page  # said to the browser that entered the first study
    assert not Participant.objects.filter(study=second).exists()


def test_failing_attention_checks_excludes_at_the_threshold_with_a_reason(implicature):
    study = small_study(attention_checks=2, exclude_at=2, failed_attention_code="FAILEDAC")
    bot = Bot(study, pid(13))
    done = bot.complete(choose=lambda item: "no" if item.is_attention_check else item.gold)
    participant = bot.participant
    assert participant.attention_failures == 2 and participant.excluded
    assert "failed 2 attention checks" in participant.exclusion_reason
    assert "FAILEDAC" in done.content.decode()
    one_failure = Bot(study, pid(14))
    checks_seen = []

    def fail_first_check(item):
        if item.is_attention_check:
            checks_seen.append(item.pk)
            return "no" if len(checks_seen) == 1 else "yes"
        return item.gold

    one_failure.complete(choose=fail_first_check)
    assert one_failure.participant.attention_failures == 1 and not one_failure.participant.excluded


def test_the_answer_forms_url_follows_the_deployments_path_prefix(implicature):
    # served under a path prefix (SCRIPT_NAME, a reverse proxy's sub-path) the study's form posts under
    # that prefix, and without it, without
    from django.test.utils import override_script_prefix

    study = small_study()
    bot = _start(study, 9)
    step = f"/s/{study.link}/step/"
    plain = bot.client.get(step).content.decode()
    with override_script_prefix("/parity/"):
        prefixed = bot.client.get(step).content.decode()
    again = bot.client.get(step).content.decode()
    assert f'action="/s/{study.link}/answer/"' in plain and "/parity/" not in plain
    assert f'action="/parity/s/{study.link}/answer/"' in prefixed
    assert f'action="/s/{study.link}/answer/"' in again and "/parity/" not in again


ALREADY = "That item was already answered; here is your next one: item {position} of {total}."


def test_an_answer_to_an_item_answered_before_is_said_to_be_so_and_never_said_saved(implicature):
    """From a second tab or a page the browser kept: the page shows the current item with the truth,
    for the screen reader too (the announcement htmx's swap reads), and writes nothing."""
    study = small_study(unit_size=3, attention_checks=1)
    bot = _start(study, 7)
    item_id, position = bot.current_form(bot.step().content.decode())
    first = {"item": item_id, "position": position, "answer": "yes"}
    bot.post("answer", first)
    bot.answer_current()
    total = bot.participant.total
    said = ALREADY.format(position=3, total=total)
    for headers in ({"HTTP_HX_REQUEST": "true"}, {}):
        page = bot.client.post(
            f"/s/{study.link}/answer/",
            {**first, "item": form_item(bot.participant.pk, 1, item_id), "answer": "no"},
            **headers,
        )
        html = page.content.decode()
        assert page.status_code == 200
        assert f'<p class="notice" id="already-answered">{said}</p>' in html
        assert f'<template id="announcement">{said}</template>' in html and "Answer saved" not in html
        assert 'name="position" value="3"' in html
    stored = Response.objects.filter(participant=bot.participant).order_by("position")
    assert [(response.position, response.raw_answer) for response in stored][0] == (1, "yes")
    assert stored.count() == 2 and bot.participant.answered == 2
    # the item after it is said saved as before
    page = bot.answer_current().content.decode()
    assert "already-answered" not in page
    # a position no item of the participant's has is no answer given before
    forged = bot.client.post(f"/s/{study.link}/answer/", {**first, "position": 2}, HTTP_HX_REQUEST="true")
    assert "already-answered" not in forged.content.decode()


def test_the_item_page_is_never_kept_by_the_browser(implicature):
    bot = _start(small_study(), 8)
    page = bot.step()
    assert 'id="item-area"' in page.content.decode()
    assert "no-store" in page["Cache-Control"]
