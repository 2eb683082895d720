"""A study's participant pages in its language: every page of the path, whatever language the
browser asks for; Arabic right to left; the pages that know no study in the browser's language; the
researcher's pages in English; the language chosen on the form, the command and the API."""

from __future__ import annotations

import re

import pytest
from django.conf import settings
from django.core.management import call_command
from django.test import Client

from studies.errors import StudyError
from studies.models import Participant, Study
from studies.setup.drafts import study_duplicate
from studies.setup.studies import study_create
from tests.factories import Bot, pid
from tests.languages import language_study
from tests.studies.workflow.helpers import create, edit_data

pytestmark = pytest.mark.django_db


def html_tag(page: str) -> str:
    return re.search(r"<html[^>]*>", page).group(0)


def test_a_german_study_is_in_german_on_every_page_whatever_the_browser_asks():
    study = language_study("de")
    bot = Bot(study, pid(1), client=Client(headers={"accept-language": "fr-FR,fr;q=0.9,en;q=0.5"}))
    start = bot.client.get(f"/s/{study.link}/?PROLIFIC_PID={pid(1)}&STUDY_ID=S1&SESSION_ID=X1").content.decode()
    assert html_tag(start) == '<html lang="de" dir="ltr">'
    assert "Willkommen" in start and "etwa 30 Minuten" in start and ">Beginnen</button>" in start
    consent = bot.enter().content.decode()
    assert "Bevor Sie beginnen" in consent and "Ich stimme der Teilnahme zu" in consent
    assert "Etwa 30 Minuten." in consent
    assert "Sie nehmen <strong>freiwillig</strong>" in consent  # the researcher's text, as written
    instructions = bot.post("consent", {"agree": "yes"}).content.decode()
    assert "<h1>Anleitung</h1>" in instructions
    bot.post("begin", {})
    seen = {}
    for html, item, position in bot.item_pages():
        seen[item.meta["id"]] = html
        assert f"{position} von 4" in html
        if item.meta["id"] == "beine":
            refused = bot.post("answer", {"item": item.pk, "position": position, "answer": "acht"}).content.decode()
            assert "Bitte geben Sie eine Zahl ein, zum Beispiel 42 oder 3.5 („acht“ ist keine)." in refused
            assert "Geben Sie eine Zahl ein und drücken Sie die Eingabetaste." in refused
        bot.post("answer", {"item": item.pk, "position": position, "answer": item.gold})
    # the benchmark's own labels are translated, the researcher's options shown as written
    assert "Ja <kbd>Y</kbd>" in seen["wasser"] and "Tastatur: Y / 1 = Ja; N / 2 = Nein" in seen["wasser"]
    assert "Canberra" in seen["hauptstadt"] and "Tastatur: 1 = Sydney" in seen["hauptstadt"]
    done = bot.step().content.decode()
    assert "Vielen Dank – Ihre Antworten sind gespeichert" in done and "Ihr Abschlusscode lautet" in done
    assert "Haben Sie für eine Ihrer Antworten ein KI-Werkzeug" in done  # the closing questions
    assert bot.participant.step == Participant.Step.DONE


def test_an_arabic_study_is_right_to_left_and_in_arabic():
    study = language_study("ar")
    bot = Bot(study, pid(2))
    consent = bot.enter().content.decode()
    assert html_tag(consent) == '<html lang="ar" dir="rtl">'
    assert "قبل أن تبدؤوا" in consent and "أوافق على المشاركة" in consent
    bot.post("consent", {"agree": "yes"})
    item = bot.post("begin", {}).content.decode()
    assert "1 من 4" in item


def test_the_arabic_done_page_ends_a_question_with_its_own_mark_and_no_colon():
    study = language_study("ar")
    bot = Bot(study, pid(4))
    bot.start_items()
    for _html, item, position in bot.item_pages():
        bot.post("answer", {"item": item.pk, "position": position, "answer": item.gold})
    done = bot.step().content.decode()
    label = re.search(r'<label for="id_feedback">([^<]*)</label>', done).group(1)
    assert label.endswith("؟") and not label.endswith(":"), label
    assert "؟:" not in done


def test_a_refusal_is_in_the_studys_language():
    study = language_study("es", items="de", status=Study.Status.PAUSED)
    page = Bot(study, pid(3)).enter().content.decode()
    assert "Este estudio está en pausa" in page and 'lang="es"' in page


def test_a_page_that_knows_no_study_follows_the_browsers_language():
    study = language_study("de")
    strict = Client(enforce_csrf_checks=True, headers={"accept-language": "fr-CH,fr;q=0.9"})
    refused = strict.post(f"/s/{study.link}/consent/", {"agree": "yes"})
    assert refused.status_code == 403 and "Ce formulaire n’a pas pu être accepté" in refused.content.decode()
    english = Client(enforce_csrf_checks=True).post(f"/s/{study.link}/consent/", {"agree": "yes"})
    assert "This form could not be accepted" in english.content.decode()
    unknown = Client(headers={"accept-language": "de"}).get("/s/no-such-study/step/")
    assert unknown.status_code == 404 and "Seite nicht gefunden" in unknown.content.decode()


def test_the_researchers_pages_stay_english(researcher_client, researcher):
    study = language_study("ar", owner=researcher)
    Bot(study, pid(4)).enter()  # a participant's request in Arabic first, on the same thread
    researcher_client.defaults["HTTP_ACCEPT_LANGUAGE"] = "de"
    page = researcher_client.get(f"/studies/{study.pk}/").content.decode()
    assert html_tag(page) == '<html lang="en-gb" dir="ltr">'
    assert '<span id="study-language">العربية</span>' in page  # the study's language, named in itself


def test_the_preview_shows_the_participants_pages_in_the_studys_language(researcher_client, researcher):
    study = language_study("fr", items="de", owner=researcher)
    page = researcher_client.get(f"/studies/{study.pk}/preview/").content.decode()
    assert "Avant de commencer" in page and "J’accepte de participer" in page
    assert 'lang="en" dir="ltr"' in page  # the preview's own banner, for the researcher


def test_the_language_is_chosen_on_the_form_and_edited_on_a_draft(researcher_client, implicature):
    response = create(researcher_client, "implicature", name="auf Deutsch", language="de", units=1, unit_size=4)
    assert response.status_code == 302, response.context["form"].errors
    study = Study.objects.get(name="auf Deutsch")
    assert study.language == "de"
    researcher_client.post(f"/studies/{study.pk}/edit/", edit_data(researcher_client, study, language="zh-hans"))
    assert Study.objects.get(pk=study.pk).language == "zh-hans"
    refused = researcher_client.post(f"/studies/{study.pk}/edit/", edit_data(researcher_client, study, language="xx"))
    assert "language" in refused.context["form"].errors


def test_the_command_and_the_service_take_a_language(implicature):
    call_command("create_study", benchmark="implicature", name="en français", language="fr", units=1, unit_size=4)
    study = Study.objects.get(name="en français")
    assert study.language == "fr"
    assert study_duplicate(study=study, owner=None).language == "fr"
    with pytest.raises(StudyError, match="no participant language 'xx'"):
        study_create(name="nowhere", benchmark="implicature", design={"units": 1, "unit_size": 4}, language="xx")


@pytest.mark.parametrize(
    "code, heading",
    [
        ("de", "Bevor Sie beginnen"),
        ("es", "Antes de empezar"),
        ("fr", "Avant de commencer"),
        ("zh-hans", "开始之前"),
        ("ar", "قبل أن تبدؤوا"),
    ],
)
def test_every_shipped_language_is_compiled_and_shown(code, heading):
    assert {code for code, _ in settings.LANGUAGES} == {"en", "de", "es", "fr", "zh-hans", "ar"}
    study = language_study(code, items="de")
    consent = Bot(study, pid(5)).enter().content.decode()
    assert f'<html lang="{code}"' in consent and f"<h1>{heading}</h1>" in consent


def _arabic_implicature(**design):
    from tests.browser.walks import STUDIES

    study = STUDIES["implicature"](name="implicature in arabic", language="ar")
    if design:
        Study.objects.filter(pk=study.pk).update(design={**study.design, **design})
        study.refresh_from_db()
    return study


def test_untranslated_texts_carry_their_own_language_and_direction_in_an_arabic_study():
    """The benchmark's default consent and instructions, its items and its question line are
    English inside an Arabic page: each says so (lang="en" dir="ltr"), so that it reads left to
    right with its punctuation in place; the page's own words stay Arabic."""
    study = _arabic_implicature()
    bot = Bot(study, pid(5))
    consent = bot.enter().content.decode()
    assert html_tag(consent) == '<html lang="ar" dir="rtl">'
    assert '<div class="text" lang="en" dir="ltr">' in consent and "أوافق على المشاركة" in consent
    instructions = bot.post("consent", {"agree": "yes"}).content.decode()
    assert '<div class="text" lang="en" dir="ltr">' in instructions
    item = bot.post("begin", {}).content.decode()
    assert '<div class="item-text" id="item-text" lang="en" dir="ltr">' in item
    assert '<p class="question" id="question-line" lang="en" dir="ltr">Does the response mean yes or no?</p>' in item


def test_the_researchers_question_line_in_the_participants_language_is_shown_without_a_foreign_mark():
    study = _arabic_implicature(question="هل يعني الرد نعم أم لا؟")
    bot = Bot(study, pid(6))
    bot.start_items()
    item = bot.step().content.decode()
    assert '<p class="question" id="question-line">هل يعني الرد نعم أم لا؟</p>' in item
    assert '<div class="item-text" id="item-text" lang="en" dir="ltr">' in item  # the dataset stays English


def test_the_study_form_and_page_name_the_texts_participants_read_in_another_language(researcher_client):
    created = create(researcher_client, "implicature", name="arabic draft", language="ar")
    assert created.status_code == 302
    study = Study.objects.get(name="arabic draft")
    page = researcher_client.get(f"/studies/{study.pk}/").content.decode()
    warned = re.findall(r'<li data-text="(\w+)">', page)
    assert warned == ["consent", "instructions", "items", "question"]
    assert "The consent, in English: write the consent in the participants&#x27; language." in page
    form = researcher_client.get(f"/studies/{study.pk}/edit/").content.decode()
    assert re.findall(r'<li data-text="(\w+)">', form) == warned
    # the researcher gives the consent, the instructions and the question line in Arabic
    changes = {
        "consent_text": "مشاركتكم طوعية.",
        "instructions_text": "اقرؤوا كل حوار ثم أجيبوا.",
        "design_question": "هل يعني الرد نعم أم لا؟",
    }
    saved = researcher_client.post(f"/studies/{study.pk}/edit/", edit_data(researcher_client, study, **changes))
    assert saved.status_code == 302
    page = researcher_client.get(f"/studies/{study.pk}/").content.decode()
    assert re.findall(r'<li data-text="(\w+)">', page) == ["items"]
    english = create(researcher_client, "implicature", name="english draft")
    assert english.status_code == 302
    english_page = researcher_client.get(f"/studies/{Study.objects.get(name='english draft').pk}/").content.decode()
    assert 'id="foreign-texts"' not in english_page
