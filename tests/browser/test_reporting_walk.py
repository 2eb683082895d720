"""A study planned for a reviewer's checklist, walked in a browser from the new-study form to the report:
the power analysis, the items drawn stratified by category, Prolific's prescreening, the population
and ethics review, practice questions and a comprehension check, explanations after every 2nd item;
people take part; the researcher answers what Parity cannot on the checklist page; the report carries
the recruitment, training and explanation sentences and the checklist with both kinds of answer."""

from __future__ import annotations

import pytest

from prolific.models import ProlificStudy
from studies.models import Response, Study
from studies.setup.checklist import study_checklist_notes_set
from tests.browser.helpers import fill_study_form, plan_for_the_checklist, sign_in
from tests.factories import Bot, pid
from tests.personas import researcher

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

DESIGN = {"units": "2", "unit_size": "5", "per_unit": "1", "attention_checks": "2", "exclude_at": "2"}


def test_a_study_planned_for_the_checklist_is_walked_from_the_form_to_the_report(
    live_server, page, artifacts, implicature_source
):
    from annotation.services import benchmark_import

    benchmark_import(name="implicature", source=implicature_source)
    owner = researcher()
    sign_in(page, live_server, owner)
    page.set_viewport_size({"width": 1280, "height": 1000})
    page.goto(f"{live_server.url}/studies/new/?benchmark=implicature")
    fill_study_form(page, "Planned for the checklist", DESIGN)
    page.wait_for_function(
        "document.getElementById('power-analysis-text').textContent.includes('in 2 units of 5 items')"
    )
    page.select_option("#id_item_sampling", "stratified")
    page.fill("#id_sample_size", "10")
    page.fill("#id_sample_seed", "1234")
    plan_for_the_checklist(page)
    page.check("#id_exclude_earlier")
    page.fill("#id_paper_title", "Do models get implicature?")
    page.locator("#sampling-fields").screenshot(path=str(artifacts / "new-study-sampling.png"))
    page.locator("#screening-fields").screenshot(path=str(artifacts / "new-study-screening.png"))
    page.focus("#id_name")
    page.keyboard.press("Enter")
    page.wait_for_selector('#study-status[data-status="draft"], #study-form .errorlist, #form-errors')
    assert page.locator("#study-form").count() == 0, page.inner_text("#study-form")

    study = Study.objects.get(name="Planned for the checklist")
    assert (study.item_sampling, study.sample_size, study.sample_seed) == ("stratified", 10, 1234)
    assert study.prolific_filters == {"age_min": 18, "age_max": 65, "approval_rate_min": 95, "exclude_earlier": True}
    assert study.power_analysis["people"] == 2 and study.population.startswith("adult native")
    assert len(study.practice_questions) == 2 and len(study.comprehension_questions) == 2
    page.click("#move-live")
    page.wait_for_selector('#study-status[data-status="live"]')
    for n in (1, 2):  # one place in each of the two units; each says why at the items that ask
        bot = Bot(Study.objects.get(pk=study.pk), pid(n)).start_items()
        for html, item, position in bot.item_pages():
            why = {"explanation": f"reason {position}"} if 'name="explanation"' in html else {}
            bot.post("answer", {"item": item.pk, "position": position, "answer": item.gold, **why})
    asked = Response.objects.filter(participant__study=study).exclude(explanation="")
    assert sorted({r.position % 2 for r in asked}) == [0] and asked.count() >= 2, "every 2nd position asks"

    # recruited on Prolific, whose prescreening applied (a study without a Prolific study only keeps its filters)
    ProlificStudy.objects.create(study=study, prolific_id="6a2f0c1d", places=2)

    # the checklist page: Parity's answers, and the researcher's for what it cannot know
    page.goto(f"{live_server.url}/studies/{study.pk}/results/")
    page.click("#checklist-link")
    page.wait_for_selector("#checklist-notes")
    assert "10 of the " in page.inner_text("#entry-1\\.2\\.1")
    assert "aged 18 to 65" in page.inner_text("#entry-2\\.3\\.1")
    assert "2 practice questions and a comprehension check before the items; 2 people began" in page.inner_text(
        "#entry-2\\.6"
    )
    assert f"after every 2nd item, {asked.count()} explanations from 2 people" in page.inner_text("#entry-3\\.6")
    page.fill("#id_entry_1_6", "Yes: a pilot of 5 people before launch")
    page.fill("#id_entry_2_4", "No: the authors did not take part")
    page.click("#checklist-save")
    page.wait_for_selector("#entry-1\\.6 >> text=entered by the researcher")
    page.screenshot(path=str(artifacts / "reporting-checklist.png"), full_page=False)
    assert Study.objects.get(pk=study.pk).checklist_notes == {
        "1.6": "Yes: a pilot of 5 people before launch",
        "2.4": "No: the authors did not take part",
    }

    # a note that differs from an answer Parity computed is flagged, and the computed answer corrected
    noted = Study.objects.get(pk=study.pk)
    study_checklist_notes_set(study=noted, notes={**noted.checklist_notes, "3.2.2": "1 of 3 excluded"})
    page.reload()
    page.wait_for_selector("#checklist-contradictions")
    assert "1 of your notes contradicts Parity's answer: 3.2.2." in page.inner_text("#checklist-contradictions")
    assert "your note: “1 of 3 excluded”" in page.inner_text("#entry-3\\.2\\.2")
    assert "Parity computed “0 of 2 excluded”; your note says “1 of 3 excluded”" in page.inner_text(
        "#checklist-contradictions"
    )
    page.screenshot(path=str(artifacts / "reporting-checklist-contradiction.png"), full_page=False)
    page.select_option("#id_entry", "3.2.2")
    page.fill("#id_text", "1 of 3 excluded (one person answered on paper and was entered by hand)")
    page.fill("#id_reason", "a third person took part on paper; Parity holds only the two online")
    page.click("#checklist-correct-save")
    page.wait_for_selector("#entry-3\\.2\\.2.corrected")
    assert "corrected by the researcher: a third person took part on paper" in page.inner_text("#entry-3\\.2\\.2")
    assert page.locator("#checklist-contradictions").count() == 0

    report = page.request.get(f"{live_server.url}/studies/{study.pk}/report/?format=markdown")
    assert report.ok
    text = report.text()
    assert "drawn at random stratified by category with seed 1234" in text
    assert "Prolific's prescreening admitted only participants aged 18 to 65" in text
    assert "Before the items, participants answered 2 practice questions" in text
    assert "why they chose their answer after every 2nd item" in text
    assert "Yes: a pilot of 5 people before launch" in text and "entered by the researcher" in text
    assert "University Research Ethics Committee" in text
