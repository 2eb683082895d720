"""A researcher corrects an answer Parity computed, with a reason: the answer says it was corrected,
why, and what Parity computed, on the checklist page and in every format of the report. A note that
differs from an answer Parity computed no longer disappears: both are shown, and the checklist page
flags the contradiction. The published implicature study is the case: its paper reports 21 people,
one discarded for failing three attention questions, where the published data hold the 20 kept."""

from __future__ import annotations

import json

import pytest

from parity.reporting.checklist import COMPUTED, CORRECTED, checklist_json, counts
from results.computing.assemble import study_results_tree
from results.loading.selectors import load_study_data
from results.pipeline import study_checklist
from results.presenting.report import render_report
from studies.errors import StudyError
from studies.models import Study, StudyEvent
from studies.setup.checklist import (
    study_checklist_correction_remove,
    study_checklist_correction_set,
    study_checklist_notes_set,
)
from tests.personas import personas_for, signed_in

pytestmark = pytest.mark.django_db

ATTENTION = "Yes: three attention questions at random places; two or more failed: answers removed (Ruis et al., App. E)"
PEOPLE = "21 people took part; 1 failed the attention checks and was excluded, 20 analysed"
REASON = (
    "Ruis et al. (2023), Appendix E: one more participant failed the attention checks; "
    "the published data hold only the 20 kept"
)


def _checklist(study: Study):
    study.refresh_from_db()
    results = study_results_tree(load_study_data(study), n_boot=200)
    return results, {answer.entry.id: answer for answer in study_checklist(study, results)}


def test_a_note_that_differs_from_a_computed_answer_is_shown_beside_it_and_flagged(baseline) -> None:
    study = Study.objects.get(pk=baseline.study_id)
    _, before = _checklist(study)
    computed = before["1.1"].text
    assert computed.startswith("20 people analysed: ") and before["1.1"].source == COMPUTED
    study_checklist_notes_set(study=study, notes={"1.1": ATTENTION, "2.4": "No"})
    results, after = _checklist(study)
    # Parity's answer stands, the researcher's beside it, flagged, and the note is a record it rests on
    assert after["1.1"].text == computed and after["1.1"].source == COMPUTED
    assert after["1.1"].contradicting_note == ATTENTION
    assert after["1.1"].record("checklist note 1.1") == ATTENTION
    assert after["1.1"].shown_source == f"{COMPUTED}; contradicted by the researcher's note: “{ATTENTION}”"
    assert after["2.4"].contradicting_note == ""  # a note on an entry Parity leaves open fills it
    flagged = [answer.entry.id for answer in after.values() if answer.contradicting_note]
    assert flagged == ["1.1"]
    checklist = list(after.values())
    for fmt in ("markdown", "html", "latex"):
        assert "contradicted by the researcher" in render_report(results, fmt, checklist), fmt
    assert (
        json.loads(checklist_json(checklist))["entries"][[a.entry.id for a in checklist].index("1.1")][
            "contradicting_note"
        ]
        == ATTENTION
    )
    # the checklist page flags it above the table and on the row
    people = personas_for(study, prefix="contradiction-")
    page = signed_in(people.owner).get(f"/studies/{study.pk}/checklist/").content.decode()
    assert 'id="checklist-contradictions"' in page and "1 of your notes contradicts Parity's answer: 1.1." in page
    assert f"Parity computed\n      “{computed}”; your note says “{ATTENTION}”" in page
    assert '<tr id="entry-1.1" class="contradicted">' in page and "your note: “" in page


def test_a_researcher_corrects_a_computed_answer_with_a_reason_shown_everywhere(baseline) -> None:
    study = Study.objects.get(pk=baseline.study_id)
    _, before = _checklist(study)
    computed = before["1.1"].text
    # the import's own records (20 entered, 20 completed) are not the original study's: 1.1 does not say them
    assert computed.startswith("20 people analysed: those whose answers the original study published")
    assert "entered" not in computed and before["1.1"].source == COMPUTED
    people = personas_for(study, prefix="correction-")
    owner = signed_in(people.owner)
    url = f"/studies/{study.pk}/checklist/"
    # without a reason nothing is written
    refused = owner.post(url, {"action": "correct", "entry": "1.1", "text": PEOPLE, "reason": ""})
    assert refused.status_code == 200 and "This field is required." in refused.content.decode()
    assert Study.objects.get(pk=study.pk).checklist_corrections == {}
    with pytest.raises(StudyError, match="Say why Parity's answer is wrong"):
        study_checklist_correction_set(study=study, entry_id="1.1", text=PEOPLE, reason="  ")
    saved = owner.post(url, {"action": "correct", "entry": "1.1", "text": PEOPLE, "reason": REASON})
    assert saved.status_code == 302
    assert Study.objects.get(pk=study.pk).checklist_corrections == {"1.1": {"text": PEOPLE, "reason": REASON}}
    results, after = _checklist(study)
    answer = after["1.1"]
    assert answer.text == PEOPLE and answer.source == f"{CORRECTED}: {REASON}" and answer.computed_text == computed
    assert answer.shown_source == f"{CORRECTED}: {REASON} (Parity computed: {computed})"
    assert counts(list(after.values()))[CORRECTED] == 1 and sum(counts(list(after.values())).values()) == 71
    checklist = list(after.values())
    for fmt in ("markdown", "html"):
        report = render_report(results, fmt, checklist)
        assert PEOPLE in report and "corrected by the researcher: Ruis et al. (2023), Appendix E" in report, fmt
    assert "corrected by the researcher: Ruis et al." in render_report(results, "latex", checklist)
    page = owner.get(url).content.decode()
    assert '<tr id="entry-1.1" class="corrected">' in page and f"Parity computed: {computed}" in page
    # restoring Parity's answer keeps the trail
    assert owner.post(url, {"action": "uncorrect", "entry": "1.1"}).status_code == 302
    _, restored = _checklist(study)
    assert restored["1.1"].text == computed and restored["1.1"].source == COMPUTED
    # a viewer may not correct
    assert signed_in(people.viewer).post(
        url, {"action": "correct", "entry": "1.1", "text": "x", "reason": "y"}
    ).status_code in (403, 404)
    assert Study.objects.get(pk=study.pk).checklist_corrections == {}


def test_a_correction_of_an_unknown_entry_writes_nothing(baseline) -> None:
    study = Study.objects.get(pk=baseline.study_id)
    with pytest.raises(StudyError, match="no entry '9.9'"):
        study_checklist_correction_set(study=study, entry_id="9.9", text="x", reason="y")
    study_checklist_correction_remove(study=study, entry_id="1.1")  # nothing to remove: nothing happens
    assert Study.objects.get(pk=study.pk).checklist_corrections == {}


def test_a_launched_studys_trail_records_each_correction_and_its_removal(pilot) -> None:
    study = Study.objects.get(pk=pilot.study_id)
    study_checklist_correction_set(study=study, entry_id="3.2.2", text="2 of 5 excluded", reason="A2 withdrew")
    event = StudyEvent.objects.filter(study=study).latest("pk")
    assert event.summary == "Reporting checklist answer 3.2.2 corrected: A2 withdrew"
    assert event.data == {
        "checklist_entries": ["3.2.2"],
        "correction": {"text": "2 of 5 excluded", "reason": "A2 withdrew"},
        "before": None,
    }
    study_checklist_correction_remove(study=study, entry_id="3.2.2")
    event = StudyEvent.objects.filter(study=study).latest("pk")
    assert event.data["correction"] is None and event.data["before"] == {
        "text": "2 of 5 excluded",
        "reason": "A2 withdrew",
    }
