"""A study's preregistration: written while a draft, frozen at launch with the SHA-256 of its canonical
JSON, never changed after; every later change recorded in the audit trail, those departing from the
plan listed as deviations ("preregistered vs done")."""

from __future__ import annotations

import hashlib
import json

import pytest

from modelruns.services import modelrun_cancel, modelrun_start, modelspec_get_or_create
from prolific.models import ProlificStudy
from prolific.preregistration import recruitment_plan
from prolific.recruitment import prolific_recruit_configure
from prolific.services import prolific_places_raise
from studies.models import Preregistration, Study, StudyEvent, Unit, UnitItem
from studies.participants.decisions import participants_exclude, participants_include
from studies.participants.entry import participant_enter
from studies.preregistration.document import preregistration_export
from studies.preregistration.services import PreregistrationError, preregistration_update
from studies.setup.studies import study_set_status, study_update, unit_set_capacity
from tests.factories import pid, small_study

pytestmark = pytest.mark.django_db


def independent_sha256(value) -> str:
    """The documented canonical JSON, written out again here: sorted keys, no whitespace, UTF-8."""
    text = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def launched_study(researcher, name: str = "preregistered") -> Study:
    """A draft with hypotheses, notes and one planned model run, then launched."""
    study = small_study(name, status=Study.Status.DRAFT, owner=researcher)
    preregistration_update(study=study, hypotheses="Humans beat the model by 5 points.", notes="Pilot first.")
    modelrun_start(study=study, spec=modelspec_get_or_create(model="smollm2"), enqueue=False)
    return study_set_status(study=study, status=Study.Status.LIVE, actor=researcher)


def test_launching_freezes_the_plan_with_the_hash_of_its_canonical_json(implicature, researcher):
    study = launched_study(researcher)
    frozen = Preregistration.objects.get(study=study)
    assert frozen.is_frozen and len(frozen.sha256) == 64
    assert frozen.sha256 == independent_sha256(frozen.document)
    document = frozen.document
    assert document["hypotheses"] == "Humans beat the model by 5 points." and document["notes"] == "Pilot first."
    assert document["design"]["places"] == 4 and [u["capacity"] for u in document["design"]["units"]] == [2, 2]
    assert document["quality"]["attention_checks"] == 2 and document["quality"]["exclude_at"] == 2
    assert document["recruitment"]["stopping_rule"].startswith("all places filled")
    assert [run["model"] for run in document["runs"]] == ["smollm2"]
    assert document["pay"]["reward_pence"] == study.reward_pence
    launch = StudyEvent.objects.get(study=study)
    assert (launch.kind, launch.actor, launch.data["sha256"]) == (StudyEvent.Kind.LAUNCHED, researcher, frozen.sha256)


def test_the_items_hash_equals_an_independent_recomputation(implicature, researcher):
    study = launched_study(researcher)
    units = []
    for unit in Unit.objects.filter(study=study).order_by("position"):
        rows = UnitItem.objects.filter(unit=unit).select_related("item").order_by("order")
        units.append(
            {
                "unit": unit.label,
                "items": [{"key": r.item.key, "prompt": r.item.prompt, "gold": r.item.gold} for r in rows],
            }
        )
    assert sum(len(unit["items"]) for unit in units) == 10
    exported = preregistration_export(study)
    assert exported["document"]["items"]["sha256"] == independent_sha256(units)
    assert exported["document"]["items"]["n_items"] == 10


def test_later_edits_leave_the_hash_unchanged_and_are_listed_as_deviations(implicature, researcher):
    study = launched_study(researcher)
    frozen = Preregistration.objects.get(study=study)
    sha, document = frozen.sha256, frozen.document
    planned = study.model_runs.get()

    unit = Unit.objects.filter(study=study).order_by("position").first()
    unit_set_capacity(unit=unit, capacity=5, actor=researcher)  # places raised beyond the target
    participant = participant_enter(study=study, pid=pid(1)).participant
    participants_exclude(participant_ids=[participant.pk], reason="typed nonsense", actor=researcher)
    participants_include(participant_ids=[participant.pk], actor=researcher)
    modelrun_start(study=study, spec=modelspec_get_or_create(model="smollm2"), setting={"k": 1}, enqueue=False)
    modelrun_cancel(run=planned, actor=researcher)
    created_with = study.reward_pence
    study.reward_pence = 600
    study_update(study=study, fields=["reward_pence"], actor=researcher)  # a rule changed
    study.name = "preregistered (renamed)"
    study_update(study=study, fields=["name"], actor=researcher)  # recorded, not a deviation
    study_set_status(study=study, status=Study.Status.PAUSED, actor=researcher)  # recorded, not a deviation

    frozen.refresh_from_db()
    assert (frozen.sha256, frozen.document) == (sha, document)
    assert frozen.sha256 == independent_sha256(frozen.document)
    exported = preregistration_export(Study.objects.get(pk=study.pk))
    assert exported["sha256"] == sha
    assert [event["kind"] for event in exported["audit"]] == [
        "launched",
        "places",
        "excluded",
        "included",
        "run_added",
        "run_cancelled",
        "settings",
        "settings",
        "status",
    ]
    assert [(row["kind"], row["deviation"]) for row in exported["deviations"]] == [
        ("places", "places now 7, preregistered 4"),
        ("excluded", "participants excluded by hand, not by the preregistered attention-check rule"),
        ("included", "participants included again against an exclusion"),
        ("run_added", "a model run that was not preregistered"),
        ("run_cancelled", "a preregistered model run cancelled"),
        ("settings", "preregistered settings changed: reward_pence"),
    ]
    assert all(row["at"] and row["summary"] for row in exported["deviations"])
    # a run's setting in words, as the results name it, not its JSON
    added = exported["audit"][4]
    assert added["summary"] == "Run added: smollm2, template 2, k=1"
    assert 'setting {"' not in exported["markdown"] and 'setting {"' not in exported["html"]
    settings_change = exported["audit"][6]
    assert settings_change["data"]["fields"] == {"reward_pence": {"from": created_with, "to": 600}}
    assert settings_change["actor"] == researcher.get_username()
    # the audit trail names participants by pseudonym, never by their Prolific ID
    assert pid(1) not in json.dumps(exported["audit"]) and pid(1) not in exported["markdown"]
    assert "## Preregistered vs done" in exported["markdown"] and "places now 7, preregistered 4" in exported["html"]


def test_edits_to_a_frozen_preregistration_are_refused(implicature, researcher):
    study = launched_study(researcher)
    with pytest.raises(PreregistrationError, match="frozen"):
        preregistration_update(study=study, hypotheses="Something else", notes="")
    assert Preregistration.objects.get(study=study).hypotheses == "Humans beat the model by 5 points."


def test_a_study_launched_without_a_written_preregistration_freezes_the_automatic_part(implicature, researcher):
    study = small_study("launched at once", owner=researcher)  # created live: launched at once
    frozen = preregistration_export(study)
    assert frozen["frozen_at"] and frozen["document"]["hypotheses"] == ""
    assert "_(none written)_" in frozen["markdown"] and frozen["document"]["items"]["n_items"] == 10


def test_a_draft_records_no_audit_trail_and_has_no_frozen_hash(implicature, researcher):
    study = small_study("still a draft", status=Study.Status.DRAFT, owner=researcher)
    unit_set_capacity(unit=study.units.first(), capacity=3)
    preregistration_update(study=study, hypotheses="H", notes="")
    exported = preregistration_export(study)
    assert exported["frozen_at"] is None and exported["audit"] == [] and exported["deviations"] == []
    assert "Draft: not frozen yet" in exported["markdown"]
    assert not StudyEvent.objects.filter(study=study).exists()


def test_an_imported_study_has_no_preregistration(implicature):
    imported = small_study("answers collected elsewhere", is_imported=True)
    participants_exclude(participant_ids=[], reason="")
    assert preregistration_export(imported) is None and not StudyEvent.objects.filter(study=imported).exists()


def test_the_markdown_shows_the_hash_the_time_and_the_items_hash(implicature, researcher):
    study = launched_study(researcher)
    exported = preregistration_export(study)
    markdown = exported["markdown"]
    assert f"SHA-256 of the document: `{exported['sha256']}`" in markdown
    assert f"Frozen at launch on {exported['frozen_at']}" in markdown
    assert exported["document"]["items"]["sha256"] in markdown
    assert "Humans beat the model by 5 points." in markdown and "10,000 resamples, seed 0" in markdown
    html = exported["html"]
    assert "@media print" in html and exported["sha256"] in html and exported["frozen_at"] in html


def test_raising_places_on_prolific_departs_from_the_plan_only_beyond_its_target(implicature, researcher):
    study = launched_study(researcher)
    found = ProlificStudy.objects.create(study=study, prolific_id="p" * 24, places=4)
    offline = type("Offline", (), {"study_update": lambda self, *args: {}})()
    prolific_places_raise(prolific_study=found, places=6, client=offline)
    prolific_recruit_configure(prolific_study=found, kind="per_unit", value=3, max_spend_pence=5000, step=2)
    exported = preregistration_export(study)
    assert [row["deviation"] for row in exported["deviations"]] == [
        "places raised to 6 on Prolific, beyond the preregistered 4",
        "recruitment target changed from the preregistered one",
    ]
    assert exported["audit"][-1]["data"]["target"] == recruitment_plan(found)


def test_the_plan_names_how_a_precision_target_is_met(implicature, researcher):
    from studies.preregistration.document import study_document

    study = small_study("planned", owner=researcher)
    found = ProlificStudy.objects.create(study=study, prolific_id="q" * 24, places=4)
    prolific_recruit_configure(prolific_study=found, kind="ci_width", value=10, max_spend_pence=5000, step=2)
    recruitment = study_document(study)["recruitment"]
    assert recruitment["precision"]["by"] == "planned_looks"
    assert recruitment["stopping_rule"] == (
        "recruit on Prolific until 95% interval of human accuracy 10 points wide, by planned looks: the places "
        "raised to each look's number of participants, set by the spread of their accuracies alone, and the study "
        "stopped only at a look; spending at most £50.00"
    )
    prolific_recruit_configure(
        prolific_study=found, kind="ci_width", value=10, max_spend_pence=5000, rule="confidence_sequence"
    )
    recruitment = study_document(study)["recruitment"]
    assert recruitment["precision"]["by"] == "confidence_sequence"
    assert recruitment["stopping_rule"].startswith(
        "recruit on Prolific until 95% confidence sequence of human accuracy at most 10 points wide, raising the "
        "places by 2 at a time"
    )


def test_every_admin_edit_of_what_the_frozen_plan_covers_is_a_listed_deviation(
    implicature, researcher, researcher_client, django_user_model
):
    """Consent and instruction texts, the participants' language, the PID rule, the group that refuses
    repeat participants, the answer floor and the units' capacity: all in the frozen document, so each
    change in the admin is a deviation, not only an entry of the audit trail."""
    study = launched_study(researcher)
    url = f"/admin/studies/study/{study.pk}/change/"
    form = researcher_client.get(url).context["adminform"].form
    data = {name: value for name, value in form.initial.items() if name in form.fields and value is not None}
    data.update(
        collaborators=[],
        closing_questions=json.dumps(data.get("closing_questions") or []),
        consent_text="A new consent text.",
        instructions_text="New instructions.",
        language="de",
        pid_format=Study.PidFormat.TOKEN,
        group="another-group",
        min_answer_ms=5,
    )
    assert researcher_client.post(url, data).status_code == 302
    unit = study.units.first()
    unit_url = f"/admin/studies/unit/{unit.pk}/change/"
    researcher_client.force_login(django_user_model.objects.create_superuser("root-units", "r@example.org", "x"))
    assert researcher_client.post(unit_url, {"capacity": unit.capacity + 1}).status_code == 302
    exported = preregistration_export(Study.objects.get(pk=study.pk))
    deviations = [row["deviation"] for row in exported["deviations"]]
    assert deviations == [
        "preregistered settings changed: consent_text, group, instructions_text, language, min_answer_ms, pid_format",
        "places now 5, preregistered 4",
    ], deviations
    assert Preregistration.objects.get(study=study).sha256 == independent_sha256(exported["document"])
