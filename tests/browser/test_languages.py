"""A German and an Arabic study walked in a real browser from the study link to the completion
redirect: every page in the study's language (Arabic right to left, its buttons mirrored), the
researcher's own texts as written, a refused answer explained in the language; a screenshot of
each step in test-artifacts/ (languages-<lang>-<step>.png)."""

from __future__ import annotations

import pytest

from annotation.models import Item
from studies.models import Participant
from tests.browser.helpers import press_when_focused, wait_until_interactive
from tests.factories import entry_url, pid
from tests.languages import STUDIES, language_study

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

#: what each page says in the language, the progress line, and how the page is laid out
SAYS = {
    "de": {
        "dir": "ltr",
        "start": "Willkommen",
        "consent": "Bevor Sie beginnen",
        "instructions": "Anleitung",
        "progress": "{position} von {total}",
        "hint": "Tastatur: Y / 1 = Ja; N / 2 = Nein",
        "not_a_number": "Bitte geben Sie eine Zahl ein, zum Beispiel 42 oder 3.5 („acht“ ist keine).",
        "typed_wrong": "acht",
        "code": "Ihr Abschlusscode lautet",
        "not_say": "Keine Angabe",
        "send": "Senden und zu Prolific zurückkehren",
    },
    "ar": {
        "dir": "rtl",
        "start": "أهلًا بكم",
        "consent": "قبل أن تبدؤوا",
        "instructions": "التعليمات",
        "progress": "{position} من {total}",
        "hint": "لوحة المفاتيح: Y / 1 = نعم; N / 2 = لا",
        "not_a_number": "يُرجى كتابة رقم، مثل 42 أو 3.5 (فـ«ثمانية» ليس رقمًا).",
        "typed_wrong": "ثمانية",
        "code": "رمز الإتمام الخاص بكم هو",
        "not_say": "أفضّل عدم الإجابة",
        "send": "الإرسال والعودة إلى Prolific",
    },
}


def shot(page, artifacts, language: str, step: str) -> None:
    page.screenshot(path=str(artifacts / f"languages-{language}-{step}.png"), full_page=True)


@pytest.mark.parametrize("language", ["de", "ar"])
@pytest.mark.usefixtures("prolific_standin")
def test_a_study_is_walked_in_its_language_to_the_completion_redirect(live_server, page, artifacts, language):
    says, spec = SAYS[language], STUDIES[language]
    study = language_study(language)
    # the browser prefers English: the study's language wins
    page.context.set_extra_http_headers({"Accept-Language": "en-GB,en;q=0.9"})
    page.set_viewport_size({"width": 900, "height": 760})
    page.goto(live_server.url + entry_url(study, pid(90)))
    page.wait_for_selector("#start")
    assert page.locator("html").get_attribute("lang") == language
    assert page.locator("html").get_attribute("dir") == says["dir"]
    assert page.evaluate("getComputedStyle(document.body).direction") == says["dir"]
    assert says["start"] in page.locator("#start h1").inner_text()
    shot(page, artifacts, language, "1-start")
    press_when_focused(page, "Enter")
    page.wait_for_selector("#consent")
    assert page.locator("#consent h1").inner_text() == says["consent"]
    assert spec["consent"].replace("**", "") in page.locator("#consent .text").inner_text()
    shot(page, artifacts, language, "2-consent")
    press_when_focused(page, "Enter")
    page.wait_for_selector("#instructions")
    assert page.locator("#instructions h1").inner_text() == says["instructions"]
    shot(page, artifacts, language, "3-instructions")
    press_when_focused(page, "Enter")
    page.wait_for_selector("#item-area")
    participant = Participant.objects.get(study=study)
    for position, item_id in enumerate(participant.sequence, start=1):
        label = says["progress"].format(position=position, total=participant.total)
        page.wait_for_selector(f"#progress .label >> text={label}")
        wait_until_interactive(page)
        item = Item.objects.get(pk=item_id)
        kind = item.prompt.get("kind")
        shot(page, artifacts, language, f"4-item-{position}-{kind}")
        if kind == "number":
            box = page.locator("#answer-box")
            box.fill(says["typed_wrong"])
            box.press("Enter")
            page.wait_for_selector("#item-area .error")
            assert page.locator("#item-area .error").inner_text().startswith(says["not_a_number"])
            wait_until_interactive(page)
            shot(page, artifacts, language, f"4-item-{position}-refused")
            page.locator("#answer-box").fill(item.gold)
            page.locator("#answer-box").press("Enter")
        elif kind == "yes_no":
            assert page.locator(".keys-hint").inner_text() == says["hint"]
            page.keyboard.press("1")
        else:
            buttons = page.locator("#item-area button.choice")
            first, second = buttons.nth(0).bounding_box(), buttons.nth(1).bounding_box()
            # the buttons run in the reading direction: right to left in Arabic
            assert (first["x"] > second["x"]) == (says["dir"] == "rtl")
            page.get_by_role("button", name=item.gold).click()
    page.wait_for_selector("#closing-questions")
    assert says["code"] in page.locator("#done").inner_text()
    assert page.locator("#completion-code").inner_text() == study.completion_code
    page.get_by_label(says["not_say"]).first.check()
    shot(page, artifacts, language, "5-done")
    assert page.locator("#send-closing").inner_text() == says["send"]
    page.click("#send-closing")
    page.wait_for_selector("#prolific")
    assert page.url.endswith(f"?cc={study.completion_code}")
    participant.refresh_from_db()
    assert participant.step == Participant.Step.DONE and participant.answered == participant.total == 4
    assert participant.closing_answers == {"gender": "prefer_not_to_say"}


def _reads_left_to_right(page, selector: str) -> bool:
    """Whether the text of `selector` is laid out left to right: its first character left of its last
    (in a right-to-left paragraph an English question's "?" would stand at its left end)."""
    return page.evaluate(
        """selector => { const node = document.querySelector(selector).firstChild, text = node.textContent;
            const at = i => { const range = document.createRange(); range.setStart(node, i); range.setEnd(node, i + 1);
                              return range.getBoundingClientRect().left; };
            return at(0) < at(text.length - 1); }""",
        selector,
    )


def test_an_arabic_study_of_an_english_benchmark_marks_each_english_text(live_server, page, artifacts):
    """An Arabic study of implicature: the page is Arabic and right to left, and the benchmark's
    English texts (the default consent and instructions, the item, its question line) each read left
    to right with their own lang, the question mark at the end of the question, not before it."""
    from tests.browser.walks import STUDIES as WALKS

    study = WALKS["implicature"](name="implicature in arabic", language="ar")
    page.set_viewport_size({"width": 900, "height": 760})
    page.goto(live_server.url + entry_url(study, pid(91)))
    press_when_focused(page, "Enter")
    page.wait_for_selector("#consent")
    assert page.eval_on_selector("html", "element => getComputedStyle(element).direction") == "rtl"
    consent = page.locator("#consent .text")
    assert (consent.get_attribute("lang"), consent.evaluate("element => getComputedStyle(element).direction")) == (
        "en",
        "ltr",
    )
    shot(page, artifacts, "ar", "english-consent")
    press_when_focused(page, "Enter")
    page.wait_for_selector("#instructions")
    assert page.locator("#instructions .text").get_attribute("lang") == "en"
    press_when_focused(page, "Enter")
    page.wait_for_selector("#question-line")
    wait_until_interactive(page)
    question = page.locator("#question-line")
    assert question.inner_text() == "Does the response mean yes or no?"
    assert _reads_left_to_right(page, "#question-line"), "the question mark ends the question"
    assert question.get_attribute("lang") == "en"
    assert page.locator("#item-text").get_attribute("lang") == "en" and _reads_left_to_right(page, "#item-text")
    assert page.locator("button.choice").first.inner_text().startswith("نعم")  # the buttons stay Arabic
    shot(page, artifacts, "ar", "english-item")
