"""Explanations ("why did you choose this answer?"): the optional box appears only where the study
asks (by position), its text is stored with the answer in the same write, a text over the limit is
refused with a message and given back whole, and the exports, the bundle, the methods and the
checklist carry it."""

from __future__ import annotations

import csv
import io
import json
import re

import pytest

from replication.bundles import bundle_files
from results.computing.assemble import study_results_tree
from results.loading.selectors import load_study_data
from results.pipeline import study_checklist
from results.presenting.report import build_report
from results.presenting.report.figures import plain
from studies.design.explanations import MAX_CHARS
from studies.errors import StudyError
from studies.models import Response, Study
from studies.setup.studies import study_create
from tests.factories import Bot, pid, small_study

pytestmark = pytest.mark.django_db

BOX = 'name="explanation"'


def _study(name: str, mode: str, every: int = 5, **fields):
    return small_study(
        name, units=1, unit_size=5, per_unit=4, attention_checks=1, explanations=mode, explanation_every=every, **fields
    )


def _answer(bot: Bot, why: str = "", **extra):
    html = bot.step().content.decode()
    item_id, position = bot.current_form(html)
    gold = Response._meta.apps.get_model("annotation", "Item").objects.get(pk=item_id).gold
    return bot.post("answer", {"item": item_id, "position": position, "answer": gold, "explanation": why, **extra})


def test_the_box_appears_only_at_every_nth_position(implicature):
    study = _study("why every 2nd", "nth", every=2)
    bot = Bot(study, pid(1)).start_items()
    shown = []
    for html, _item, position in bot.item_pages():
        shown.append((position, BOX in html))
        _answer(bot, why=f"reason {position}")
    assert shown == [(position, position % 2 == 0) for position in range(1, len(shown) + 1)]
    stored = dict(Response.objects.filter(participant=bot.participant).values_list("position", "explanation"))
    # a text sent where no box was shown is not kept: only the asked positions carry one
    assert stored == {p: (f"reason {p}" if p % 2 == 0 else "") for p in stored}


def test_no_box_when_the_study_asks_none_or_asks_at_the_end(implicature):
    for mode in ("off", "end"):
        bot = Bot(_study(f"why {mode}", mode), pid(2)).start_items()
        assert BOX not in bot.step().content.decode()


def test_the_text_is_stored_with_the_answer_it_explains(implicature):
    study = _study("why every", "every", explanation_prompt="Explain your choice")
    bot = Bot(study, pid(3)).start_items()
    html = bot.step().content.decode()
    assert "Explain your choice" in html and BOX in html
    _answer(bot, why="  The speaker avoids saying no.  ")
    response = Response.objects.get(participant=bot.participant)
    assert response.explanation == "The speaker avoids saying no."
    assert response.position == 1 and response.valid


def test_the_default_label_is_in_the_study_language(implicature):
    study = _study("why in french", "every", language="fr")
    html = Bot(study, pid(4)).start_items().step().content.decode()
    assert "Pourquoi avez-vous choisi cette réponse ?" in html


def test_an_overlong_text_is_refused_with_a_message_and_given_back_whole(implicature):
    study = _study("why too long", "every")
    bot = Bot(study, pid(5)).start_items()
    typed = "because " * (MAX_CHARS // 8 + 5)
    page = _answer(bot, why=typed)
    html = page.content.decode()
    assert page.status_code == 422
    assert f"longer than {MAX_CHARS} characters" in html
    assert typed.strip() in html.replace("&#x27;", "'"), "nothing typed is lost"
    assert not Response.objects.filter(participant=bot.participant).exists()
    assert bot.participant.answered == 0
    # shortened, the same item is answered
    _answer(bot, why="short")
    assert Response.objects.get(participant=bot.participant).explanation == "short"


def test_an_overlong_text_through_htmx_gives_the_item_back_too(implicature):
    study = _study("why too long htmx", "every")
    bot = Bot(study, pid(6)).start_items()
    page = _answer(bot, why="x" * (MAX_CHARS + 1), HTTP_HX_REQUEST="true")
    html = page.content.decode()
    assert 'id="item-area"' in html and "x" * (MAX_CHARS + 1) in html
    assert not Response.objects.filter(participant=bot.participant).exists()


def test_once_at_the_end_is_a_closing_question_kept_with_the_participant(implicature):
    study = _study("why at the end", "end")
    bot = Bot(study, pid(7))
    done = bot.complete().content.decode()
    assert 'name="explanation"' in done
    bot.client.post(f"/s/{study.link}/closing/", {"explanation": "I went with my first reading"})
    assert bot.participant.closing_answers == {"explanation": "I went with my first reading"}


def test_the_preview_shows_the_same_box_and_refuses_an_overlong_text(implicature, researcher, researcher_client):
    study = _study("why preview", "every", owner=researcher, status=Study.Status.DRAFT)
    researcher_client.post(f"/studies/{study.pk}/preview/restart/")
    researcher_client.post(f"/studies/{study.pk}/preview/consent/", {"agree": "yes"})
    researcher_client.post(f"/studies/{study.pk}/preview/begin/")
    html = researcher_client.get(f"/studies/{study.pk}/preview/").content.decode()
    assert BOX in html
    token = re.search(r'name="item" value="([^"]+)"', html).group(1)
    page = researcher_client.post(
        f"/studies/{study.pk}/preview/answer/",
        {"item": token, "position": 1, "answer": "yes", "explanation": "y" * (MAX_CHARS + 1)},
    )
    assert f"longer than {MAX_CHARS} characters" in page.content.decode()
    assert "y" * (MAX_CHARS + 1) in page.content.decode()


def test_the_service_refuses_an_unknown_setting(implicature):
    with pytest.raises(StudyError, match="explanations"):
        study_create(name="why bad", benchmark="implicature", design={"units": 1, "unit_size": 3}, explanations="x")


def _walk(study, n: int, why: str) -> None:
    for k in range(n):
        bot = Bot(study, pid(100 + k)).start_items()
        while bot.participant.step == "items":
            _answer(bot, why=f"{why} {k}")


def test_the_exports_the_bundle_the_methods_and_the_checklist_carry_them(implicature, researcher, researcher_client):
    study = _study("why carried", "nth", every=2, owner=researcher)
    _walk(study, 2, "=reason")
    stored = Response.objects.filter(participant__study=study).exclude(explanation="")
    n, people = stored.count(), stored.values("participant").distinct().count()
    assert n and people == 2

    def long(query: str = "") -> list[dict[str, str]]:
        response = researcher_client.get(f"/studies/{study.pk}/export/csv/{query}")
        assert response.status_code == 200
        return list(csv.DictReader(io.StringIO(response.content.decode())))

    withheld = [row for row in long() if row["position"] in ("2", "4")]
    assert withheld and all(row["explanation"] == "" and row["free_text_withheld"] == "true" for row in withheld)
    given = [row["explanation"] for row in long("?include_free_text=1") if row["explanation"]]
    # a spreadsheet formula trigger is defused as in every CSV cell
    assert len(given) == n and all(text.startswith("'=reason") for text in given)
    jsonl = researcher_client.get(f"/studies/{study.pk}/export/jsonl/?include_free_text=1").content.decode()
    assert sum(1 for line in jsonl.splitlines() if json.loads(line)["explanation"]) == n

    files = bundle_files(study)
    answers = [json.loads(line) for line in files["humans/answers.jsonl"].decode().splitlines()]
    assert sorted(row["explanation"] for row in answers if row["explanation"]) == sorted(
        stored.values_list("explanation", flat=True)
    )
    settings = json.loads(files["study/settings.json"])
    assert (settings["explanations"], settings["explanation_every"]) == ("nth", 2)

    results = study_results_tree(load_study_data(study), n_boot=50)
    asked = results.methods.explanations
    assert (asked.mode, asked.every, asked.given, asked.people) == ("nth", 2, n, 2)
    checklist = {answer.entry.id: answer for answer in study_checklist(study, results)}
    assert checklist["3.6"].text == (
        f"Yes: after every 2nd item, {n} explanations from 2 people, in humans/answers.jsonl"
    )
    methods = " ".join(plain(paragraph) for paragraph in build_report(results, list(checklist.values())).methods)
    assert f"why they chose their answer after every 2nd item; {n} explanations from 2 people." in methods


def test_the_checklist_says_no_when_none_was_asked(implicature):
    study = _study("why not asked", "off")
    _walk(study, 1, "ignored")
    assert not Response.objects.filter(participant__study=study).exclude(explanation="").exists()
    results = study_results_tree(load_study_data(study), n_boot=50)
    answer = {a.entry.id: a for a in study_checklist(study, results)}["3.6"]
    assert answer.text.startswith("No: ")
    methods = " ".join(plain(p) for p in build_report(results).methods)
    assert "why they chose" not in methods


def test_the_review_page_the_admin_page_and_the_results_page_reach_them(implicature, researcher, researcher_client):
    study = _study("why reached", "nth", every=2, owner=researcher)
    _walk(study, 1, "the speaker hedges")
    participant = study.participants.get()
    stored = list(
        Response.objects.filter(participant=participant)
        .exclude(explanation="")
        .order_by("position")
        .values_list("position", "item__key", "explanation")
    )
    assert stored
    review = researcher_client.get(f"/studies/{study.pk}/participants/{participant.pk}/review/").content.decode()
    rows = dict(re.findall(r'data-position="(\d+)">(.*?)</tr>', review, re.S))
    for position, _key, text in stored:
        assert f'<p class="explanation"><small>Why:</small> {text}</p>' in rows[str(position)]
    assert review.count('class="explanation"') == len(stored)
    admin = researcher_client.get(f"/admin/studies/participant/{participant.pk}/change/").content.decode()
    for position, key, text in stored:
        assert f"<li>#{position} {key}: {text}</li>" in admin
    results = researcher_client.get(f"/studies/{study.pk}/results/").content.decode()
    link = re.search(r'<a href="([^"]+)" id="free-text-export" download>([^<]+)</a>', results)
    assert link.group(1) == f"/studies/{study.pk}/export/csv/?include_free_text=1"
    assert link.group(2) == "csv with participants' free text (explanations)"


def test_an_explanation_asked_at_the_end_is_on_the_review_and_admin_pages(implicature, researcher, researcher_client):
    study = _study("why at the end, shown", "end", owner=researcher)
    bot = Bot(study, pid(8))
    bot.complete()
    bot.client.post(f"/s/{study.link}/closing/", {"explanation": "I went with my first reading"})
    participant = bot.participant
    review = researcher_client.get(f"/studies/{study.pk}/participants/{participant.pk}/review/").content.decode()
    assert '<p class="explanation" id="closing-explanation">I went with my first reading</p>' in review
    admin = researcher_client.get(f"/admin/studies/participant/{participant.pk}/change/").content.decode()
    assert "<li>at the end: I went with my first reading</li>" in admin
