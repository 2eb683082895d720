"""The researcher's answers to the checklist entries Parity cannot answer: kept by a service that
refuses unknown entries and overlong answers whole, filling only the gaps, written on the study's
checklist page by those who may change the study."""

from __future__ import annotations

import pytest

from parity.reporting.checklist import ENTERED, Status, counts
from prolific.models import ProlificStudy
from results.computing.assemble import study_results_tree
from results.loading.selectors import load_study_data
from results.pipeline import study_checklist
from studies.errors import StudyError
from studies.models import Study
from studies.setup.checklist import NOTE_MAX_CHARS, study_checklist_notes_set
from tests.personas import personas_for, signed_in

pytestmark = pytest.mark.django_db

#: entries a study run in Parity with its reporting fields filled in answers (of the checklist's 71)
ANSWERED_AT_LEAST = 66

#: what only the researchers know of the native study, as they would write it
NOTES = {
    "0.3": "2026",
    "0.5": "Capabilities",
    "1.5": "Partial: the items are the benchmark's; humans and models see one template",
    "1.6": "Yes: a pilot of 5 people before launch",
    "1.7": "No: people had no time limit, models one forward pass",
    "2.1.1": "Language, age",
    "2.4": "No",
    "3.3.2": "No",
    "3.4.1": "No",
    "3.5": "Yes: neither had tools",
    "3.5.1": "No",
}


def _answers(study: Study) -> dict[str, object]:
    study.refresh_from_db()
    results = study_results_tree(load_study_data(study), n_boot=200)
    return {answer.entry.id: answer for answer in study_checklist(study, results)}


def test_notes_fill_the_gaps_and_never_replace_a_computed_figure(pilot) -> None:
    study = Study.objects.get(pk=pilot.study_id)
    before = _answers(study)
    study_checklist_notes_set(study=study, notes={**NOTES, "1.1": "100 people", "0.1": "  "})
    after = _answers(study)
    assert after["1.6"].source == ENTERED and after["1.6"].text == NOTES["1.6"]
    assert after["1.1"].text == before["1.1"].text and after["1.1"].source != ENTERED  # Parity's count stays
    assert after["0.1"].status is Status.NOT_ANSWERED  # a blank note is no answer
    assert Study.objects.get(pk=study.pk).checklist_notes.keys() == {*NOTES, "1.1"}
    gained = counts(list(after.values()))[ENTERED] - counts(list(before.values()))[ENTERED]
    assert gained == sum(1 for entry_id in NOTES if before[entry_id].status is not Status.ANSWERED)


def test_an_unknown_entry_or_an_overlong_answer_writes_nothing(pilot) -> None:
    study = Study.objects.get(pk=pilot.study_id)
    study_checklist_notes_set(study=study, notes={"1.6": "Yes: a pilot"})
    with pytest.raises(StudyError, match="no entry '9.9'"):
        study_checklist_notes_set(study=study, notes={"1.6": "changed", "9.9": "?"})
    with pytest.raises(StudyError, match=f"under {NOTE_MAX_CHARS} characters"):
        study_checklist_notes_set(study=study, notes={"2.4": "x" * (NOTE_MAX_CHARS + 1)})
    assert Study.objects.get(pk=study.pk).checklist_notes == {"1.6": "Yes: a pilot"}


def test_the_checklist_page_keeps_the_owners_answers_and_refuses_a_viewer(pilot) -> None:
    study = Study.objects.get(pk=pilot.study_id)
    people = personas_for(study, prefix="checklist-")
    url = f"/studies/{study.pk}/checklist/"
    owner = signed_in(people.owner)
    page = owner.get(url)
    assert page.status_code == 200
    assert 'name="entry_1_6"' in page.content.decode() and 'name="entry_1_1"' not in page.content.decode()
    saved = owner.post(url, {"entry_1_6": "Yes: a pilot of 5 people", "entry_2_4": "No"})
    assert saved.status_code == 302 and saved["Location"] == url
    shown = owner.get(url).content.decode()
    assert "Yes: a pilot of 5 people" in shown and "entered by the researcher" in shown
    assert signed_in(people.viewer).post(url, {"entry_2_4": "Yes"}).status_code in (403, 404)
    assert signed_in(people.outsider).get(url).status_code == 404
    assert Study.objects.get(pk=study.pk).checklist_notes == {"1.6": "Yes: a pilot of 5 people", "2.4": "No"}


def test_a_native_study_with_its_fields_and_notes_answers_at_least_64_entries(pilot) -> None:
    Study.objects.filter(pk=pilot.study_id).update(
        population="adult native English speakers in the UK",
        ethics_body="University Research Ethics Committee",
        ethics_reference="UREC-1",
        paper_title="Do models get implicature?",
        paper_url="https://example.org/paper",
        paper_venue="ACL 2027",
        closing_questions=["age", "gender", "first_language", "ai_tool", "seen_before", "feedback"],
        prolific_filters={"age_min": 18, "approval_rate_min": 95, "exclude_earlier": True},
        item_sampling="stratified",
        sample_seed=1234,
        sample_pool=600,
        practice_questions=[{"text": "Yes or no?", "answer": "no", "choices": ["yes", "no"], "feedback": "Because."}],
        comprehension_questions=[{"text": "One or two?", "answer": "one", "choices": ["one", "two"], "feedback": ""}],
    )
    study = Study.objects.get(pk=pilot.study_id)
    # run on Prolific, which applies the prescreening
    ProlificStudy.objects.create(study=study, prolific_id="6a2e", places=10)
    study_checklist_notes_set(study=study, notes=NOTES)
    answers = _answers(study)
    tally = counts(list(answers.values()))
    print("native with the researcher's fields and notes", tally)
    assert tally["computed by Parity"] + tally[ENTERED] >= ANSWERED_AT_LEAST
    for answer in answers.values():
        if answer.status is not Status.ANSWERED:
            reason = answer.source.split(": ", 1)[1]
            assert reason and reason != "not recorded by this study", answer
