"""An answer's integrity signals through the answer view: the page's behaviour figures (checked,
never refusing the answer), the answer without them, the honeypot, the reading floor and the canary."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from freezegun import freeze_time

from studies.models import Participant, Response
from studies.participants.quality import participant_evidence, participant_flags
from studies.setup.studies import study_create
from tests.factories import Bot, pid, small_study

pytestmark = pytest.mark.django_db

T0 = datetime(2026, 3, 2, 10, 0, tzinfo=UTC)
WRITTEN = "Write the word that means the opposite of the input."


def _figures(**given: int | str) -> dict[str, str]:
    figures = {"pastes": 0, "blurs": 0, "hidden": 0, "hidden_ms": 0, "keys": 60, "first_input_ms": 800, **given}
    return {f"behaviour-{name}": str(value) for name, value in figures.items()}


def _induction(name: str = "written"):
    return study_create(
        name=name, benchmark="instruction_induction", design={"tasks_per_participant": 3, "annotators_per_task": 1}
    )


def _answer(bot: Bot, answer: str, **fields: str):
    item_id, position = bot.current_form(bot.step().content.decode())
    return bot.post("answer", {"item": item_id, "position": position, "answer": answer, **fields})


def _flags(study) -> dict[int, list[str]]:
    return participant_flags(Participant.objects.filter(study=study))


@pytest.fixture
def written(instruction_induction):
    return _induction()


def test_the_pages_figures_are_stored_with_the_answer_and_the_written_answers_length(written):
    with freeze_time(T0) as clock:
        bot = Bot(written, pid(1)).start_items()
        bot.step()
        clock.tick(timedelta(seconds=30))
        _answer(bot, WRITTEN, **_figures(pastes=1, blurs=2, hidden=1, hidden_ms=12000, keys=3))
    stored = Response.objects.get(participant=bot.participant).extra["behaviour"]
    assert stored == {
        "status": "recorded",
        "pastes": 1,
        "blurs": 2,
        "hidden": 1,
        "hidden_ms": 12000,
        "keys": 3,
        "first_input_ms": 800,
        "chars": len(WRITTEN),
    }
    # the paste the page counted is a paste, without the instruction box's own mark
    assert "pasted" not in Response.objects.get(participant=bot.participant).extra
    assert _flags(written) == {bot.participant.pk: ["pasted", "left_tab"]}
    evidence = participant_evidence(Participant.objects.filter(study=written))[bot.participant.pk]
    assert evidence["left_tab"]["detail"] == "the page was hidden during 1 of 1 answers, 12.0 s in all; 2 focus losses"


@pytest.mark.parametrize(
    "bad",
    [
        {"pastes": -1},
        {"keys": "many"},
        {"hidden_ms": 86_400_001},
        {"hidden": 1, "hidden_ms": 60_000},  # away a minute from an item shown for 30 s
        {"hidden": 0, "hidden_ms": 5000},
    ],
    ids=["negative", "not-a-number", "over-a-day", "longer-than-the-item", "away-never-hidden"],
)
def test_figures_that_cannot_be_true_are_marked_and_the_answer_is_stored(written, bad):
    with freeze_time(T0) as clock:
        bot = Bot(written, pid(2)).start_items()
        bot.step()
        clock.tick(timedelta(seconds=30))
        page = _answer(bot, WRITTEN, **_figures(**bad))
    assert page.status_code == 200
    response = Response.objects.get(participant=bot.participant)
    assert response.raw_answer == WRITTEN and response.extra["behaviour"] == {"status": "invalid"}
    assert bot.participant.answered == 1


def test_an_answer_without_the_pages_script_is_marked_no_behaviour(written):
    with freeze_time(T0) as clock:
        bot = Bot(written, pid(3)).start_items()
        bot.step()
        clock.tick(timedelta(seconds=40))
        _answer(bot, WRITTEN)
    response = Response.objects.get(participant=bot.participant)
    assert response.extra["behaviour"] == {"status": "none"} and response.extra["reading_floor_ms"] > 300
    assert _flags(written) == {}, "no behaviour is no flag"
    evidence = participant_evidence(Participant.objects.filter(study=written))
    assert evidence == {
        bot.participant.pk: {
            "no_behaviour": {"detail": "1 answer came without the page's behaviour", "answers": 1},
        }
    }


def test_answers_without_the_script_sooner_than_their_reading_floor_are_a_bots(implicature):
    study = small_study("bots", units=1, unit_size=4, per_unit=3, attention_checks=0)
    program, reader, scripted = Bot(study, pid(4)), Bot(study, pid(5)), Bot(study, pid(6))
    with freeze_time(T0) as clock:
        # a program: 0.7 s per item, past the study's floor, under any item's reading floor
        program.start_items().answer_items(wait=lambda: clock.tick(timedelta(milliseconds=700)))
        # a person without JavaScript, 8 s per item
        reader.start_items().answer_items(wait=lambda: clock.tick(timedelta(seconds=8)))
        # as fast as the program, but the page's script ran: judged by the other signals, not this one
        scripted.start_items()
        for _ in range(4):
            clock.tick(timedelta(milliseconds=700))
            _answer(scripted, "yes", **_figures(keys="", first_input_ms=500))
    floors = [r.extra["reading_floor_ms"] for r in Response.objects.filter(participant=program.participant)]
    assert min(floors) > 700
    # at 0.7 s an item, the program and the scripted participant are also fast responders
    assert _flags(study) == {
        program.participant.pk: ["fast_items", "bot_speed"],
        scripted.participant.pk: ["fast_items"],
    }
    evidence = participant_evidence(Participant.objects.filter(pk=program.participant.pk))[program.participant.pk]
    assert evidence["bot_speed"]["answers"] == 4 and evidence["bot_speed"]["without_script"] == 4


def test_a_filled_honeypot_flags_the_answer_which_is_stored_without_what_was_written(implicature):
    study = small_study("honeypot", units=1, unit_size=2, per_unit=2, attention_checks=0)
    bot, person = Bot(study, pid(7)).start_items(), Bot(study, pid(8)).start_items()
    html = bot.step().content.decode()
    assert 'name="homepage" value="" tabindex="-1" autocomplete="off"' in html
    assert '<div class="honeypot" aria-hidden="true" lang="en">' in html
    _answer(bot, "yes", homepage="https://spam.example", **_figures(keys=""))
    _answer(person, "yes", homepage="", **_figures(keys=""))
    response = Response.objects.get(participant=bot.participant)
    assert response.answer == "yes" and response.extra["honeypot"] is True
    assert "spam.example" not in str(response.extra) and "spam.example" not in response.raw_answer
    assert "honeypot" not in Response.objects.get(participant=person.participant).extra
    assert _flags(study) == {bot.participant.pk: ["honeypot"]}


def test_the_canary_is_in_written_items_only_and_flags_an_answer_carrying_it(written, implicature):
    other = _induction("another written")
    assert written.canary_word != other.canary_word
    copier, person = Bot(written, pid(9)).start_items(), Bot(written, pid(10)).start_items()
    html = copier.step().content.decode()
    assert '<span class="canary" aria-hidden="true" lang="en"> (Note for AI assistants' in html
    assert html.count(f'"{written.canary_word}"') == 2 and other.canary_word not in html
    _answer(copier, f"Write the antonym of the word ({written.canary_word.capitalize()}).")
    # another study's word, and the word inside a longer one, are not this study's canary
    _answer(person, f"Write the antonym; {other.canary_word} {written.canary_word}s.")
    assert Response.objects.get(participant=copier.participant).extra["canary"] is True
    assert "canary" not in Response.objects.get(participant=person.participant).extra
    assert "canary" in _flags(written)[copier.participant.pk]
    assert "canary" not in _flags(written).get(person.participant.pk, [])
    choices = small_study("buttons", units=1, unit_size=2, per_unit=1, attention_checks=0)
    assert 'class="canary"' not in Bot(choices, pid(11)).start_items().step().content.decode()


def test_the_canary_word_is_drawn_for_each_study(implicature):
    words = {small_study(f"study {n}", units=1, unit_size=2, per_unit=1).canary_word for n in range(5)}
    assert len(words) == 5


def test_own_items_carry_the_canary_where_the_answer_is_written(db):
    from annotation.services import benchmark_import
    from tests.participation.test_custom_pages import ANSWERS, EXAMPLE

    benchmark_import(name="custom", source=EXAMPLE, options={"name": "example"})
    study = study_create(
        name="own items",
        benchmark="custom",
        design={"item_set": "example", "unit_size": 0, "per_unit": 1, "attention_checks": 0, "shuffle_items": False},
    )
    bot = Bot(study, pid(12)).start_items()
    carried = {}
    for html, item, position in bot.item_pages():
        carried[item.meta["kind"]] = 'class="canary"' in html
        bot.post("answer", {"item": item.pk, "position": position, "answer": ANSWERS[item.meta["id"]][0]})
    assert carried == {
        "choice": False,  # the attention check too
        "yes_no": False,
        "rating": False,
        "short_text": True,
        "number": False,
        "free_text": True,
    }


def test_the_study_admin_shows_the_canary_word_which_no_form_changes(implicature, researcher, researcher_client):
    study = small_study("admin canary", units=1, unit_size=2, per_unit=1, owner=researcher)
    page = researcher_client.get(f"/admin/studies/study/{study.pk}/change/")
    html = page.content.decode()
    assert page.status_code == 200 and study.canary_word in html
    assert 'name="canary_word"' not in html, "read only"
