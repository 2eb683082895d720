"""What the participant's pages and the answer read: this browser's participant at the study link
(among every participant the browser entered), with its study; nobody for another study's link or an
erased identity; the answered and the next item."""

from __future__ import annotations

import pytest
from django.utils import timezone

from annotation.models import Item
from studies.models import Participant
from studies.participants.answers import Outcome, response_submit
from studies.participants.reads import participant_at_link
from tests.factories import Bot, pid, small_study

pytestmark = pytest.mark.django_db


def _fields(instance) -> dict:
    return {field.attname: getattr(instance, field.attname) for field in type(instance)._meta.concrete_fields}


def _working_participant(name: str = "reads") -> Participant:
    study = small_study(name, attention_checks=1)
    bot = Bot(study, pid(7))
    bot.start_items()
    bot.answer_current()
    return bot.participant


def _answer(participant: Participant, known: list[int], link: str, *, show_next: bool = True):
    position = participant.answered + 1
    item = Item.objects.get(pk=participant.sequence[position - 1])
    return response_submit(
        link=link, known=known, item_id=item.pk, position=position, raw_answer=item.gold, show_next=show_next
    )


def test_a_page_reads_this_browsers_participant_at_the_link_with_its_study(implicature):
    participant = _working_participant()
    other = small_study("another study")
    expected = Participant.objects.select_related("study").get(pk=participant.pk)
    read = participant_at_link([participant.pk + 1000, participant.pk], participant.study.link)
    assert (_fields(read), _fields(read.study)) == (_fields(expected), _fields(expected.study))
    assert participant_at_link([participant.pk], other.link) is None
    assert participant_at_link([], participant.study.link) is None


def test_the_answer_reads_this_browsers_participant_at_the_link_and_no_one_elses(implicature):
    participant = _working_participant()
    other = small_study("another study")
    assert _answer(participant, [participant.pk], other.link) is None
    assert _answer(participant, [], participant.study.link) is None
    result = _answer(participant, [participant.pk + 1000, participant.pk], participant.study.link)
    assert result.outcome is Outcome.STORED and result.participant.pk == participant.pk
    assert result.participant.study.pk == participant.study_id
    assert Participant.objects.get(pk=participant.pk).answered == participant.answered + 1


def test_an_erased_participant_is_no_ones(implicature):
    participant = _working_participant()
    Participant.objects.filter(pk=participant.pk).update(erased_at=timezone.now())
    assert participant_at_link([participant.pk], participant.study.link) is None
    assert _answer(participant, [participant.pk], participant.study.link) is None
    assert participant.responses.count() == 1


def test_the_answer_brings_the_next_item_and_the_studys_long_texts_are_read_when_asked(implicature):
    participant = _working_participant()
    sequence = participant.sequence
    result = _answer(participant, [participant.pk], participant.study.link)
    assert result.outcome is Outcome.STORED
    assert _fields(result.next_item) == _fields(Item.objects.get(pk=sequence[2]))
    assert _fields(result.response.item) == _fields(Item.objects.get(pk=sequence[1]))
    # the study comes without its long texts, the records of its other pages, its codes, pay and
    # sample, the participant without their Prolific ids, training, closing answers, flags and
    # sessions: each is read when asked for
    study = result.participant.study
    unread = {
        "consent_text",
        "instructions_text",
        "closing_questions",
        "population",
        "ethics_body",
        "ethics_reference",
        "ethics_exemption",
        "paper_title",
        "paper_url",
        "paper_venue",
        "power_analysis",
        "checklist_notes",
        "checklist_corrections",
        "original_study",
        "practice_questions",
        "comprehension_questions",
        "comprehension_tries",
        "prolific_filters",
        "item_sampling",
        "sample_pool",
        "sample_size",
        "sample_seed",
        "refused_earlier",
        "pseudonyms_issued",
        "estimated_minutes",
        "reward_pence",
        "completion_code",
        "failed_attention_code",
        "pid_format",
        "panel",
        "panel_settings",
        "is_imported",
        "owner_id",
        "created_at",
    }
    assert study.get_deferred_fields() == unread
    assert {name: getattr(study, name) for name in unread} == {
        name: getattr(participant.study, name) for name in unread
    }
    unread_here = {
        "prolific_study_id",
        "prolific_session_id",
        "pseudonym",
        "is_imported",
        "started_at",
        "erased_at",
        "practice_read",
        "comprehension_tries",
        "training_started_at",
        "training_ended_at",
        "closing_answered_at",
        "session_changes",
        "practice_answers",
        "closing_answers",
        "review_signals",
    }
    assert result.participant.get_deferred_fields() == unread_here
    assert {name: getattr(result.participant, name) for name in unread_here} == {
        name: getattr(participant, name) for name in unread_here
    }
    # without htmx no next item is asked for; past the sequence's end there is none
    participant = Participant.objects.get(pk=participant.pk)
    assert _answer(participant, [participant.pk], participant.study.link, show_next=False).next_item is None
    participant = Participant.objects.get(pk=participant.pk)
    while participant.answered < len(sequence) - 1:
        _answer(participant, [participant.pk], participant.study.link)
        participant = Participant.objects.get(pk=participant.pk)
    last = _answer(participant, [participant.pk], participant.study.link)
    assert last.outcome is Outcome.STORED and last.next_item is None
    assert last.participant.step == Participant.Step.DONE
