"""Exact query counts of the participant's pages, equal at two study sizes: a participant's page must
not read the rest of the study (other units, other participants' answers)."""

from __future__ import annotations

import uuid

import pytest
from django.db import connection, reset_queries
from django.test.utils import CaptureQueriesContext

from annotation.models import Item
from studies.models import Study
from tests.factories import Bot, form_item, pid, small_study

pytestmark = [pytest.mark.both_databases, pytest.mark.django_db]

#: the participant with its study, one UPDATE of its shown and last-seen times, the item (who the
#: browser is comes from its signed cookie: no session read)
STEP_QUERIES = 3
#: in a transaction (a savepoint and its release under the test's transaction) the participant read
#: with its study and locked, the answered item read, the answer's INSERT and the progress UPDATE;
#: the page after it is a redirect
ANSWER_QUERIES = 6
#: the same, where the next item is read with the answered one and the progress update marks it
#: shown: the next item's fragment costs no further query
HTMX_ANSWER_QUERIES = ANSWER_QUERIES
#: what runs once a participant's last answer has committed: their review signals' refresh queued
#: (one task row); the results' hook after each answer reads no table while the study is small
FINISHING_QUERIES = 1


def _study(name: str, units: int) -> Study:
    """`units` units of 3 items for two participants each, all but one place taken by those who finished."""
    study = small_study(name, units=units, unit_size=3, per_unit=2, attention_checks=1)
    for n in range(2 * units - 1):
        Bot(study, pid(len(name) * 100 + n)).complete()
    return study


def _queries():
    reset_queries()  # the log keeps the last 9,000 queries: once full, a capture counts nothing
    return CaptureQueriesContext(connection)


def _redis_caches(settings) -> None:
    """The production profile's caches on the real Redis: sessions and the results' tokens and bounds."""
    location, prefix = "redis://127.0.0.1:6379/5", f"counts-{uuid.uuid4()}"
    settings.CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": location,
            "KEY_PREFIX": prefix,
        },
        "results": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": location,
            "KEY_PREFIX": f"{prefix}-results",
            "TIMEOUT": 3600,
        },
    }
    settings.SESSION_ENGINE = "django.contrib.sessions.backends.cached_db"


def _answer(bot: Bot, html: str, **headers: str):
    item_id, position = bot.current_form(html)
    item_gold = Item.objects.get(pk=item_id).gold
    token = form_item(bot.participant.pk, position, item_id)
    with _queries() as queries:
        response = bot.client.post(
            f"/s/{bot.study.link}/answer/",
            {"item": token, "position": position, "answer": item_gold},
            headers=headers,
        )
    return response, len(queries)


def _counts(study: Study) -> tuple[int, int, int]:
    """The queries of the item page (after a first view), of answering it, and of answering the next
    one with htmx (the answer POST returns the following item), for a new participant."""
    bot = Bot(study, pid(len(study.name) * 100 + 99))
    bot.start_items()
    html = bot.step().content.decode()
    with _queries() as step:
        assert bot.step().status_code == 200
    response, answer = _answer(bot, html)
    assert response.status_code == 302
    response, htmx_answer = _answer(bot, bot.step().content.decode(), HX_Request="true")
    assert response.status_code == 200 and 'name="position" value="3"' in response.content.decode()
    return len(step), answer, htmx_answer


def test_the_item_page_and_an_answer_cost_the_same_queries_for_two_and_six_participants(implicature):
    small, large = _study("one unit", 1), _study("three units", 3)
    counts = [_counts(small), _counts(large)]
    assert [small.participants.count(), large.participants.count()] == [2, 6]
    expected = (STEP_QUERIES, ANSWER_QUERIES, HTMX_ANSWER_QUERIES)
    assert counts == [expected, expected]


def test_with_sessions_in_redis_a_participant_request_costs_the_same_queries(implicature, settings):
    """The production profile (scripts/serve with REDIS_URL): cached_db sessions on the real Redis."""
    _redis_caches(settings)
    counts = _counts(_study("redis sessions", 1))
    assert counts == (STEP_QUERIES, ANSWER_QUERIES, HTMX_ANSWER_QUERIES)


def test_the_item_page_and_the_answer_read_with_no_order(implicature):
    """A browser holds one participant per study and the answer reads its items by id: none of their
    reads sorts (an ORDER BY would be compiled on every request and run for a row or two)."""
    bot = Bot(_study("no order", 1), pid(990))
    bot.start_items()
    html = bot.step().content.decode()
    with _queries() as step:
        assert bot.step().status_code == 200
    item_id, position = bot.current_form(html)
    gold = Item.objects.get(pk=item_id).gold
    token = form_item(bot.participant.pk, position, item_id)
    with _queries() as answer:
        response = bot.client.post(
            f"/s/{bot.study.link}/answer/",
            {"item": token, "position": position, "answer": gold},
            headers={"HX-Request": "true"},
        )
    assert response.status_code == 200 and 'name="position" value="2"' in response.content.decode()
    reads = [
        query["sql"]
        for query in [*step.captured_queries, *answer.captured_queries]
        if query["sql"].startswith("SELECT")
    ]
    assert len(reads) == 4 and [sql for sql in reads if "ORDER BY" in sql] == []


def test_an_answer_with_what_runs_after_its_commit_counts_none_of_the_studys_answers(
    implicature, django_capture_on_commit_callbacks
):
    """The hooks that run after each committed answer cost no query per answer: deciding whether a
    study's results are queued does not count its answers (that made each answer's cost grow with
    the study's answers). Its one count comes with the first hook; after it, every htmx answer costs
    the answer's own queries, and the last one also queues the review signals' refresh."""
    study = _study("hooks", 2)
    bot = Bot(study, pid(2 * 100 + 98))
    bot.start_items()
    html = bot.step().content.decode()
    counts = []
    while 'name="position"' in html:
        item_id, position = bot.current_form(html)
        data = {"item": form_item(bot.participant.pk, position, item_id), "position": position}
        data["answer"] = Item.objects.get(pk=item_id).gold
        with _queries() as queries, django_capture_on_commit_callbacks(execute=True) as hooks:
            response = bot.client.post(f"/s/{study.link}/answer/", data, headers={"HX-Request": "true"})
        assert response.status_code == 200 and hooks
        counts.append(len(queries))
        html = response.content.decode()
    assert len(counts) == 4
    assert counts[1:] == [HTMX_ANSWER_QUERIES] * 2 + [HTMX_ANSWER_QUERIES + FINISHING_QUERIES]


def test_an_answer_costs_three_redis_commands_and_no_pipeline(
    implicature, settings, monkeypatch, django_capture_on_commit_callbacks
):
    """What an htmx answer sends to Redis, its hooks included: the study's results token set (one
    SET, not a transaction of MSET) and its answers' bound raised (EXISTS, INCRBY, as Django's
    `incr` asks); no session is read or written. The participant's last answer also marks their
    review signals' refresh as queued (one SET). Under the test's transaction the token is set twice
    (at once and when that transaction commits); served, the answer's transaction is the outermost
    and the token is set once, after it."""
    import redis

    _redis_caches(settings)
    sent: list[str] = []
    pipelines: list[list[str]] = []
    execute_command, execute_pipeline = redis.Redis.execute_command, redis.client.Pipeline.execute

    def command(self, *args, **options):
        sent.append(str(args[0]).upper())
        return execute_command(self, *args, **options)

    def pipeline(self, *args, **options):
        pipelines.append([str(args[0]).upper() for args, _options in self.command_stack])
        return execute_pipeline(self, *args, **options)

    study = _study("redis commands", 1)
    bot = Bot(study, pid(4 * 100 + 97))
    bot.start_items()
    html = bot.step().content.decode()
    per_answer = []
    while 'name="position"' in html:
        item_id, position = bot.current_form(html)
        data = {"item": form_item(bot.participant.pk, position, item_id), "position": position}
        data["answer"] = Item.objects.get(pk=item_id).gold
        sent.clear()
        with monkeypatch.context() as patched, django_capture_on_commit_callbacks(execute=True):
            patched.setattr(redis.Redis, "execute_command", command)
            patched.setattr(redis.client.Pipeline, "execute", pipeline)
            response = bot.client.post(f"/s/{study.link}/answer/", data, headers={"HX-Request": "true"})
        assert response.status_code == 200
        per_answer.append(sorted(sent))
        html = response.content.decode()
    # the first answer counts the study's answers once (the bound's SET NX after a missing EXISTS)
    assert per_answer[1:] == [["EXISTS", "INCRBY", "SET", "SET"]] * 2 + [["EXISTS", "INCRBY", "SET", "SET", "SET"]]
    assert pipelines == []


def test_the_locked_read_of_an_answer_selects_only_what_it_reads(implicature):
    """The answer's locked read names the columns an answer and the next item read (14 of the
    participant's, 18 of the study's): each column is compiled and converted on every answer."""
    bot = Bot(_study("columns", 1), pid(4 * 100 + 96))
    bot.start_items()
    html = bot.step().content.decode()
    item_id, position = bot.current_form(html)
    token = form_item(bot.participant.pk, position, item_id)
    gold = Item.objects.get(pk=item_id).gold
    with _queries() as answer:
        response = bot.client.post(
            f"/s/{bot.study.link}/answer/",
            {"item": token, "position": position, "answer": gold},
            headers={"HX-Request": "true"},
        )
    assert response.status_code == 200
    # the first read of the answer: the participant with its study (locked on PostgreSQL)
    locked = next(query["sql"] for query in answer.captured_queries if query["sql"].startswith("SELECT"))
    selected = locked.split(" FROM ")[0]
    assert (selected.count('"studies_participant".'), selected.count('"studies_study".')) == (14, 18)
