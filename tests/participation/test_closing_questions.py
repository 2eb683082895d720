"""Optional closing questions after the items: asked on the done page below the code, stored once with
the participant, never required for the completion code."""

from __future__ import annotations

import pytest

from studies.models import Participant
from tests.factories import Bot, pid, small_study

pytestmark = pytest.mark.django_db


def _study(name: str, questions: list[str]):
    study = small_study(name, units=1, unit_size=3, per_unit=3, attention_checks=1)
    study.closing_questions = questions
    study.save(update_fields=["closing_questions"])
    return study


def test_the_done_page_shows_the_code_first_and_the_questions_after_it(implicature):
    study = _study("closing shown", ["age", "ai_tool", "feedback"])
    html = Bot(study, pid(1)).complete().content.decode()
    assert html.index(study.completion_code) < html.index('id="closing-questions"')
    assert 'http-equiv="refresh"' not in html, "no automatic return while the questions are open"
    for name in ("age", "ai_tool", "feedback"):
        assert f'name="{name}"' in html
    assert 'name="gender"' not in html, "only the questions the study asks"
    assert 'id="return-to-prolific"' in html and f"cc={study.completion_code}" in html


def test_sent_answers_are_stored_with_the_participant_and_lead_to_prolific(implicature):
    study = _study("closing sent", ["age", "ai_tool", "feedback"])
    bot = Bot(study, pid(2))
    bot.complete()
    response = bot.client.post(
        f"/s/{study.link}/closing/", {"age": "34", "ai_tool": "no", "feedback": "", "gender": "man"}
    )
    assert response.status_code == 302
    assert response["Location"].endswith(f"?cc={study.completion_code}")
    participant = bot.participant
    assert participant.closing_answers == {"age": 34, "ai_tool": "no"}, "unasked and empty answers are not kept"
    assert participant.closing_answered_at is not None
    # a second send changes nothing, and the done page no longer asks
    bot.client.post(f"/s/{study.link}/closing/", {"age": "99"})
    assert bot.participant.closing_answers == {"age": 34, "ai_tool": "no"}
    done = bot.step().content.decode()
    assert 'id="closing-questions"' not in done and study.completion_code in done


def test_a_bad_answer_is_said_and_the_code_stays_on_the_page(implicature):
    study = _study("closing bad", ["age"])
    bot = Bot(study, pid(3))
    bot.complete()
    response = bot.client.post(f"/s/{study.link}/closing/", {"age": "7"})
    assert response.status_code == 422
    html = response.content.decode()
    assert "greater than or equal to 18" in html and study.completion_code in html
    assert bot.participant.closing_answered_at is None


def test_questions_cannot_be_sent_before_the_items_are_done(implicature):
    study = _study("closing early", ["age"])
    bot = Bot(study, pid(4)).start_items()
    bot.client.post(f"/s/{study.link}/closing/", {"age": "40"})
    participant = bot.participant
    assert participant.step == Participant.Step.ITEMS and participant.closing_answers == {}


def test_a_study_without_closing_questions_returns_to_prolific_by_itself(implicature):
    study = _study("closing none", [])
    html = Bot(study, pid(5)).complete().content.decode()
    assert 'http-equiv="refresh"' in html and 'id="closing-questions"' not in html


def test_the_participants_export_carries_the_answers_and_withholds_free_text(
    implicature, researcher, researcher_client
):
    import csv
    import io

    study = _study("closing export", ["age", "ai_tool", "feedback"])
    study.owner = researcher
    study.save(update_fields=["owner"])
    answered, skipped = Bot(study, pid(6)), Bot(study, pid(7))
    answered.complete()
    answered.client.post(f"/s/{study.link}/closing/", {"age": "51", "ai_tool": "some", "feedback": "Item 3 was odd"})
    skipped.complete()

    def rows(query: str = "") -> list[dict[str, str]]:
        response = researcher_client.get(f"/studies/{study.pk}/export/participants-csv/{query}")
        assert response.status_code == 200
        return list(csv.DictReader(io.StringIO(response.content.decode())))

    first, second = rows()
    assert (first["annotator"], first["closing_age"], first["closing_ai_tool"]) == ("A1", "51", "some")
    assert first["closing_feedback"] == "" and first["closing_free_text_withheld"] == "true"
    assert (second["closing_answered"], second["closing_age"]) == ("false", "")
    assert pid(6) not in str(rows())
    assert rows("?include_free_text=1")[0]["closing_feedback"] == "Item 3 was odd"
