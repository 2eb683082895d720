"""Training before the items: practice questions answered with feedback, never counted, and a
comprehension check passed within the study's tries, after which a participant who still gets an
answer wrong is asked to return the study (Prolific's rule: https://researcher-help.prolific.com,
"comprehension checks": two tries, then return, never a rejection)."""

from __future__ import annotations

import pytest

from studies.errors import StudyError
from studies.models import Participant, Response
from studies.setup.drafts import study_draft_update
from tests.factories import Bot, pid, small_study

pytestmark = pytest.mark.django_db

PRACTICE = """Esther asks "Are you coming?" and Juan answers "I have to work". Does he mean yes or no?
- yes
- no
= no
Having to work means he cannot come.

Write the word "ready".
= ready
"""

CHECK = """What do you do on each page?
- Say whether the answer means yes or no
- Write a story
= Say whether the answer means yes or no

Can you change an answer once it is sent?
- yes
- no
= no
"""


def _study(name: str, **fields):
    return small_study(name, units=1, unit_size=3, per_unit=3, attention_checks=1, **fields)


def _to_training(bot: Bot):
    bot.enter()
    bot.post("consent", {"agree": "yes"})
    bot.post("begin", {})
    return bot.participant


def _check(bot: Bot, answers: list[str]):
    tries = bot.participant.comprehension_tries
    data = {"attempt": tries, **{f"q{n}": answer for n, answer in enumerate(answers)}}
    return bot.post("comprehension", data)


def test_the_researchers_text_is_stored_as_questions_and_a_mistake_is_named(implicature):
    study = _study("training stored", practice_questions=PRACTICE, comprehension_questions=CHECK)
    assert [q["answer"] for q in study.practice_questions] == ["no", "ready"]
    assert study.practice_questions[0]["choices"] == ["yes", "no"]
    assert study.practice_questions[0]["feedback"] == "Having to work means he cannot come."
    assert study.practice_questions[1]["choices"] == []
    with pytest.raises(StudyError, match="question 1: the answer 'maybe' is not one of the choices"):
        _study("training wrong", practice_questions="Yes or no?\n- yes\n- no\n= maybe")
    with pytest.raises(StudyError, match="comprehension questions: question 1: .*no feedback"):
        _study("check with feedback", comprehension_questions="Yes or no?\n- yes\n- no\n= no\nBecause.")


def test_practice_shows_feedback_after_each_answer_and_is_never_an_answer_of_the_study(implicature):
    study = _study("practice", practice_questions=PRACTICE)
    bot = Bot(study, pid(1))
    assert _to_training(bot).step == Participant.Step.PRACTICE
    first = bot.step().content.decode()
    assert "Practice question 1 of 2" in first and "Having to work" not in first, "no feedback before answering"
    page = bot.post("practice", {"answer": "yes"}).content.decode()
    assert "Not quite: the answer is no." in page and "Having to work means he cannot come." in page
    assert bot.post("practice", {"answer": "no"}).status_code == 200, "a second send changes nothing"
    assert bot.participant.practice_answers == [{"answer": "yes", "correct": False}]
    bot.post("practice/next", {})
    bot.post("practice/next", {})  # a double click: the second question is not skipped unanswered
    assert bot.participant.practice_read == 1
    assert 'id="practice-answer"' in bot.step().content.decode(), "a typed answer for a question without choices"
    page = bot.post("practice", {"answer": "  Ready "}).content.decode()
    assert "Right." in page
    bot.post("practice/next", {})
    participant = bot.participant
    assert participant.step == Participant.Step.ITEMS
    assert participant.training_started_at <= participant.training_ended_at
    assert not Response.objects.filter(participant=participant).exists()
    bot.answer_items()
    assert bot.participant.step == Participant.Step.DONE
    assert Response.objects.filter(participant=participant).count() == len(participant.sequence)


def test_an_empty_practice_answer_is_refused_with_a_message(implicature):
    study = _study("practice empty", practice_questions=PRACTICE)
    bot = Bot(study, pid(2))
    _to_training(bot)
    response = bot.client.post(f"/s/{study.link}/practice/", {"answer": "   "})
    assert response.status_code == 422
    assert "Please give an answer" in response.content.decode()
    assert bot.participant.practice_answers == []


def test_the_check_passed_on_a_second_try_leads_to_the_items(implicature):
    study = _study("check passed", comprehension_questions=CHECK, comprehension_tries=2)
    bot = Bot(study, pid(3))
    assert _to_training(bot).step == Participant.Step.COMPREHENSION
    page = _check(bot, ["Write a story", "no"]).content.decode()
    assert "Some answers were not right" in page and "1 try left" in page
    assert "Say whether the answer means yes or no" in page
    participant = bot.participant
    assert participant.step == Participant.Step.COMPREHENSION and participant.comprehension_tries == 1
    _check(bot, ["Say whether the answer means yes or no", "no"])
    participant = bot.participant
    assert participant.step == Participant.Step.ITEMS and participant.comprehension_tries == 2


def test_a_try_sent_twice_counts_once(implicature):
    study = _study("check double", comprehension_questions=CHECK, comprehension_tries=2)
    bot = Bot(study, pid(4))
    _to_training(bot)
    wrong = {"attempt": 0, "q0": "Write a story", "q1": "yes"}
    bot.post("comprehension", wrong)
    bot.post("comprehension", wrong)  # the same try again: a double click or a replay
    participant = bot.participant
    assert participant.comprehension_tries == 1 and participant.step == Participant.Step.COMPREHENSION


def test_wrong_after_the_last_try_asks_the_participant_to_return_and_frees_the_place(implicature):
    study = _study("check failed", comprehension_questions=CHECK, comprehension_tries=2, no_consent_code="NOCONSENT1")
    bot = Bot(study, pid(5))
    _to_training(bot)
    _check(bot, ["Write a story", "no"])
    page = _check(bot, ["Write a story", "yes"]).content.decode()
    participant = bot.participant
    assert participant.step == Participant.Step.SCREENED_OUT
    assert participant.status == Participant.Status.SCREENED_OUT
    assert "Please <strong>return</strong> the study on Prolific" in page and "NOCONSENT1" in page
    assert study.completion_code not in page
    assert not Participant.objects.filter(pk=participant.pk).holding_slot().exists()
    # nothing more is taken from them: another try, a practice answer, an item's answer
    _check(bot, ["Say whether the answer means yes or no", "no"])
    assert bot.participant.step == Participant.Step.SCREENED_OUT


def test_an_incomplete_try_is_no_try(implicature):
    study = _study("check incomplete", comprehension_questions=CHECK)
    bot = Bot(study, pid(6))
    _to_training(bot)
    response = bot.client.post(f"/s/{study.link}/comprehension/", {"attempt": 0, "q0": "Write a story"})
    assert response.status_code == 422 and "Please answer every question." in response.content.decode()
    assert bot.participant.comprehension_tries == 0


def test_practice_then_check_then_items(implicature):
    study = _study("both", practice_questions=PRACTICE, comprehension_questions=CHECK)
    bot = Bot(study, pid(7))
    _to_training(bot)
    for answer in ("no", "ready"):
        bot.post("practice", {"answer": answer})
        bot.post("practice/next", {})
    assert bot.participant.step == Participant.Step.COMPREHENSION
    assert bot.participant.training_ended_at is None
    _check(bot, ["Say whether the answer means yes or no", "no"])
    assert bot.participant.step == Participant.Step.ITEMS and bot.participant.training_ended_at is not None


def test_a_draft_takes_training_questions_and_refuses_bad_ones_whole(implicature, researcher):
    study = _study("draft training", status="draft", owner=researcher)
    study = study_draft_update(study=study, practice_questions=PRACTICE, comprehension_tries=3)
    assert len(study.practice_questions) == 2 and study.comprehension_tries == 3
    with pytest.raises(StudyError, match="comprehension tries: give 1 to 5"):
        study_draft_update(study=study, comprehension_tries=0)
    with pytest.raises(StudyError, match="give the right answer"):
        study_draft_update(study=study, practice_questions="Yes or no?\n- yes\n- no")
    study.refresh_from_db()
    assert len(study.practice_questions) == 2 and study.comprehension_tries == 3


def test_the_researchers_preview_walks_the_training_and_stores_nothing(implicature, researcher, researcher_client):
    study = _study("training preview", practice_questions=PRACTICE, comprehension_questions=CHECK, owner=researcher)
    base = f"/studies/{study.pk}/preview"
    researcher_client.post(f"{base}/consent/", {"agree": "yes"})
    researcher_client.post(f"{base}/begin/", {})
    page = researcher_client.get(f"{base}/").content.decode()
    assert 'id="practice"' in page and f'action="{base}/practice/"' in page and 'id="preview-banner"' in page
    page = researcher_client.post(f"{base}/practice/", {"answer": "yes"}, follow=True).content.decode()
    assert "Not quite: the answer is no." in page and f'action="{base}/practice/next/"' in page
    researcher_client.post(f"{base}/practice/next/", {})
    researcher_client.post(f"{base}/practice/", {"answer": "ready"})
    page = researcher_client.post(f"{base}/practice/next/", {}, follow=True).content.decode()
    assert 'id="comprehension"' in page and f'action="{base}/comprehension/"' in page
    wrong = {"attempt": 0, "q0": "Write a story", "q1": "no"}
    page = researcher_client.post(f"{base}/comprehension/", wrong, follow=True).content.decode()
    assert "1 try left" in page
    page = researcher_client.post(f"{base}/comprehension/", {**wrong, "attempt": 1}, follow=True).content.decode()
    assert 'id="screened-out"' in page
    assert not Participant.objects.filter(study=study).exists()


def test_no_item_is_answered_before_the_training_is_passed(implicature):
    study = _study("no skipping", practice_questions=PRACTICE, comprehension_questions=CHECK)
    bot = Bot(study, pid(8))
    participant = _to_training(bot)
    first = {"item": participant.sequence[0], "position": 1, "answer": "yes"}
    bot.post("answer", first)
    for answer in ("no", "ready"):
        bot.post("practice", {"answer": answer})
        bot.post("practice/next", {})
    bot.post("answer", first)  # at the check now
    assert bot.participant.step == Participant.Step.COMPREHENSION
    assert not Response.objects.filter(participant=participant).exists()
