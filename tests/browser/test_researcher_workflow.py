"""A researcher creates a study of each benchmark through the web form, previews it, launches it,
and a scripted participant completes it."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pytest

from annotation.models import Item
from annotation.services import benchmark_import
from studies.models import Participant, Response, Study
from tests.annotation.helpers import import_ambibench, import_instruction_induction, import_miqa
from tests.browser.helpers import fill_study_form, sign_in, wait_until_interactive
from tests.factories import Bot, pid
from tests.personas import researcher

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

WRITTEN = "Write the word that comes next in alphabetical order."


@dataclass(frozen=True)
class Case:
    benchmark: str
    load: Callable[[], Any]
    design: dict[str, str]
    answer_preview: Callable[[Any], None]
    participant_answer: Callable[[Item], str]
    units: int
    sequence_length: int
    extra: dict[str, str] = field(default_factory=dict)


def _click_first_choice(page) -> None:
    page.locator("#item-area button.choice").first.click()


def _type_label(page) -> None:
    """AmbiBench: type a label; the correct label then appears beside the sentence (the feedback)."""
    page.wait_for_function("document.activeElement?.id === 'answer-box'")
    page.keyboard.type("x")
    page.keyboard.press("Enter")
    page.locator('#episode-history li[data-position="1"] .label-shown').wait_for()


def _write_instruction(page) -> None:
    page.fill("#answer-box", WRITTEN)
    page.click("#induction button[type=submit]")


def _implicature(source) -> Callable[[], Any]:
    return lambda: benchmark_import(name="implicature", source=source)


CASES = {
    "implicature": dict(
        design={"units": "1", "unit_size": "3", "per_unit": "1", "attention_checks": "2", "exclude_at": "2"},
        answer_preview=_click_first_choice,
        participant_answer=lambda item: item.gold,
        units=1,
        sequence_length=5,
    ),
    "ambibench": dict(
        load=import_ambibench,
        design={"per_feature": "1", "per_unit": "1"},
        answer_preview=_type_label,
        participant_answer=lambda item: item.gold,
        units=6,
        sequence_length=20,
    ),
    # a button posts its screen position: "1" is always an answer (right or wrong); never excluded
    "miqa": dict(
        load=import_miqa,
        design={"units": "1", "unit_size": "4", "per_unit": "1", "attention_checks": "1", "exclude_at": "0"},
        answer_preview=_click_first_choice,
        participant_answer=lambda item: "1",
        units=1,
        sequence_length=5,
        extra={"estimated_minutes": "4", "reward": "1.00"},
    ),
    "instruction_induction": dict(
        load=import_instruction_induction,
        design={"tasks_per_participant": "2", "annotators_per_task": "1", "per_unit": "1"},
        answer_preview=_write_instruction,
        participant_answer=lambda item: WRITTEN,
        units=12,
        sequence_length=2,
    ),
}


@pytest.mark.parametrize("benchmark", list(CASES))
def test_a_researcher_creates_previews_and_launches_a_study_that_a_participant_completes(
    live_server, page, artifacts, implicature_source, benchmark
):
    case = Case(benchmark=benchmark, **{"load": _implicature(implicature_source), **CASES[benchmark]})
    case.load()
    owner = researcher()
    sign_in(page, live_server, owner)
    name = f"Web {benchmark}"

    page.goto(f"{live_server.url}/studies/new/")
    page.click(f'a[data-benchmark="{benchmark}"]')
    page.wait_for_selector("#study-form")
    fill_study_form(page, name, case.design, case.extra)
    page.screenshot(path=str(artifacts / f"new-study-form-{benchmark}.png"), full_page=True)
    # Enter in the name box submits the form (a full-page screenshot leaves the page's click
    # coordinates stale in headless Chromium)
    page.focus("#id_name")
    page.keyboard.press("Enter")
    page.wait_for_selector('#study-status[data-status="draft"], #study-form .errorlist, #form-errors')
    assert page.locator("#study-form").count() == 0, page.inner_text("#study-form")
    study = Study.objects.get(name=name)
    assert study.owner == owner and study.units.count() == case.units

    # preview: consent (the Markdown rendered, the script shown as text), instructions, one answer
    page.click("#preview-link")
    page.wait_for_selector("#consent strong >> text=of your own free will")
    assert page.evaluate("window.bad") is None
    page.click("#consent button[value=yes]")
    page.wait_for_selector("#instructions")
    page.click("#instructions button[type=submit]")
    page.wait_for_selector("#item-area")
    wait_until_interactive(page)
    case.answer_preview(page)
    if case.sequence_length > 1:
        page.wait_for_selector(f"#progress >> text=2 of {case.sequence_length}")
    page.screenshot(path=str(artifacts / f"preview-{benchmark}.png"), full_page=True)
    assert not Participant.objects.filter(study=study).exists() and not Response.objects.exists()

    # launch: the Prolific settings appear, each with a copy button
    page.focus("#preview-banner a")  # by keyboard: the screenshot above leaves click coordinates stale
    page.keyboard.press("Enter")
    page.click("#move-live")
    page.wait_for_selector('#study-status[data-status="live"]')
    assert "{{%PROLIFIC_PID%}}" in page.inner_text("#study-url")
    page.click('button[data-copy="#completion-code"]')
    page.wait_for_selector('button[data-copy="#completion-code"][data-copied="true"]')
    if benchmark == "implicature":
        page.screenshot(path=str(artifacts / "study-page-live.png"), full_page=True)

    bot = Bot(Study.objects.get(pk=study.pk), pid(4242))
    final = bot.complete(choose=case.participant_answer)
    participant = bot.participant
    assert participant.status == Participant.Status.COMPLETED
    assert participant.responses.count() == case.sequence_length
    assert final.status_code == 200 and study.completion_code in final.content.decode()

    # the live monitor counts the participant: one arrival, one completion, nobody working
    page.goto(f"{live_server.url}/studies/{study.pk}/monitor/")
    page.wait_for_selector("#monitor-counts")
    counts = {
        name: page.inner_text(f'#monitor-counts dd[data-count="{name}"]').strip()
        for name in ("arrivals", "working", "completed", "excluded")
    }
    assert counts == {"arrivals": "1", "working": "0", "completed": "1", "excluded": "0"}
    if benchmark == "implicature":
        page.screenshot(path=str(artifacts / "monitor-after-web-study.png"), full_page=True)
