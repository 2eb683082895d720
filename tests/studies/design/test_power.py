"""A study's power analysis: where its variance comes from (a pilot, the published study, a stated
default), `study_create` and a draft's edit recording it with the population, ethics and paper
fields, the launch freezing them in the preregistration, and the form and the API taking them."""

from __future__ import annotations

import numpy as np
import pytest

from parity.stats.power import VarianceComponents, describe, power_analysis
from studies.design import power
from studies.models import Study
from studies.preregistration.document import rendered
from studies.setup.drafts import study_draft_update
from studies.setup.studies import study_create, study_set_status
from tests.factories import completed_places, small_study
from tests.studies.workflow.helpers import create, edit_data

pytestmark = pytest.mark.django_db

REPORTING = {
    "population": "adult native English speakers in the UK",
    "ethics_body": "University Research Ethics Committee",
    "ethics_reference": "UREC-2026-117",
    "paper_title": "Do models get implicature?",
    "paper_url": "https://arxiv.org/abs/2210.14986",
    "paper_venue": "NeurIPS 2023",
}


@pytest.fixture
def no_published_files(monkeypatch, settings):
    monkeypatch.delenv("DATASETS_DIR", raising=False)
    settings.DATASETS_DIR = ""


def answered(study: Study, chance_of, seed: int = 0) -> None:
    """Every place of every unit completed, person p right on item i with chance_of(p, i); then closed."""
    rng = np.random.default_rng(seed)
    completed_places(study, lambda person, position: rng.random() < chance_of(person, position))
    Study.objects.filter(pk=study.pk).update(status=Study.Status.CLOSED)


def test_without_a_pilot_or_published_study_the_default_is_used_and_said(implicature, no_published_files):
    source = power.variance_source("implicature")
    assert source.kind == "default"
    assert source.components == power.DEFAULT
    assert "stated default" in source.label


def test_the_published_study_is_read_from_its_files_when_not_imported(implicature):
    source = power.variance_source("implicature")
    assert source.kind == "published"
    assert (source.n_people, source.n_items) == (20, 600)
    assert source.components.baseline == pytest.approx(0.862, abs=0.001)
    assert "Ruis et al." in source.label


def test_a_closed_pilot_of_the_same_benchmark_comes_first(implicature):
    pilot = small_study("pilot run", units=2, unit_size=10, per_unit=4)
    # people of three abilities, items of two difficulties: both spreads are there to measure
    answered(pilot, lambda person, position: [0.5, 0.7, 0.9][person % 3] * (0.6 if position % 2 else 1.0))
    source = power.variance_source("implicature")
    assert (source.kind, source.study, source.n_people, source.n_items) == ("pilot", "pilot run", 8, 20)
    assert 0.4 < source.components.baseline < 0.75
    # a study is never its own pilot
    assert power.variance_source("implicature", exclude=pilot.pk).kind == "published"


def test_create_records_the_analysis_and_the_reporting_fields(implicature):
    study = small_study("planned", units=2, unit_size=10, per_unit=6, **REPORTING)
    study.refresh_from_db()
    assert study.population == REPORTING["population"] and study.paper_venue == "NeurIPS 2023"
    analysis = study.power_analysis
    assert (analysis["people"], analysis["units"], analysis["items_per_person"], analysis["n_items"]) == (12, 2, 10, 20)
    assert analysis["source"]["kind"] == "published"
    components = VarianceComponents(**analysis["source"]["components"])
    expected = power_analysis(people=12, items_per_person=10, units=2, components=components)
    assert analysis["detectable_below"] == pytest.approx(expected.detectable_below)
    assert analysis["human_half_width"] == pytest.approx(expected.human_half_width)


def test_a_drafts_edit_recomputes_it_and_the_launch_freezes_it_with_the_fields(implicature):
    study = small_study("to launch", units=2, unit_size=10, per_unit=2, status=Study.Status.DRAFT)
    study.refresh_from_db()
    small_gap = study.power_analysis["detectable_below"]
    study = study_draft_update(study=study, design={"per_unit": 20}, population="students", ethics_exemption="x")
    assert study.power_analysis["people"] == 40
    assert abs(study.power_analysis["detectable_below"]) < abs(small_gap)
    study_set_status(study=study, status=Study.Status.LIVE)
    frozen = rendered(study, study.preregistration)
    reporting = frozen["document"]["reporting"]
    assert reporting["population"] == "students"
    assert reporting["ethics"] == {"body": "", "reference": "", "exemption": "x"}
    assert reporting["power"]["people"] == 40
    assert "**Population of interest:** students" in frozen["markdown"]
    assert "exempt from review: x" in frozen["markdown"]
    assert describe(reporting["power"]) in frozen["markdown"]
    assert "<strong>Population of interest:</strong> students" in frozen["html"]
    # launched, it no longer changes as a draft does
    from studies.errors import StudyError

    with pytest.raises(StudyError):
        study_draft_update(study=study, population="someone else")


def test_the_form_shows_the_analysis_and_takes_the_fields(implicature, researcher_client):
    page = researcher_client.get("/studies/new/?benchmark=implicature")
    html = page.content.decode()
    # the page asks for the analysis once shown (it plans the units from every item and loads scipy)
    assert 'id="power-analysis"' in html and "detects a gap of" not in html
    assert 'hx-get="/studies/new/?benchmark=implicature&amp;power=1"' in html
    shown = researcher_client.get("/studies/new/?benchmark=implicature&power=1", headers={"HX-Request": "true"})
    fragment = shown.content.decode()
    assert 'id="power-analysis"' in fragment and "detects a gap of" in fragment
    assert "published human study" in fragment
    assert shown.context["power"]["people"] == 20  # the paper's design: 4 units of 5 people
    # the design's live request (htmx) brings the analysis again, for the people and items typed
    asked = researcher_client.get(
        "/studies/new/?benchmark=implicature&design_units=2&design_unit_size=10&design_per_unit=3"
        "&design_split=test&design_template=2&design_attention_checks=2&design_exclude_at=2",
        headers={"HX-Request": "true"},
    )
    fragment = asked.content.decode()
    assert 'id="power-analysis"' in fragment and 'hx-swap-oob="true"' in fragment
    assert "with 6 people in 2 units of 10 items each (20 items)" in fragment
    answer = create(
        researcher_client, "implicature", name="with fields", units=2, unit_size=10, per_unit=3, **REPORTING
    )
    assert answer.status_code == 302, answer.context["form"].errors
    study = Study.objects.get(name="with fields")
    assert (study.ethics_body, study.ethics_reference, study.paper_url) == (
        REPORTING["ethics_body"],
        REPORTING["ethics_reference"],
        REPORTING["paper_url"],
    )
    assert study.power_analysis["people"] == 6
    edited = researcher_client.post(f"/studies/{study.pk}/edit/", edit_data(researcher_client, study, population="x"))
    assert edited.status_code == 302
    study.refresh_from_db()
    assert study.population == "x"


def test_a_drafts_edit_page_asks_for_the_drafts_analysis_once_shown(implicature, researcher, researcher_client):
    study = small_study("draft", units=2, unit_size=10, per_unit=3, status=Study.Status.DRAFT, owner=researcher)
    page = researcher_client.get(f"/studies/{study.pk}/edit/").content.decode()
    assert f'hx-get="/studies/{study.pk}/edit/?power=1"' in page and "detects a gap of" not in page
    shown = researcher_client.get(f"/studies/{study.pk}/edit/?power=1", headers={"HX-Request": "true"})
    # the draft's own units, as the study records its analysis
    assert shown.context["power"]["text"] == describe(study.power_analysis)
    assert "with 6 people in 2 units of 10 items each (20 items)" in shown.content.decode()


def test_a_reference_without_its_body_is_refused(implicature, researcher_client):
    answer = create(researcher_client, "implicature", name="half", units=2, unit_size=10, ethics_reference="R-1")
    assert answer.status_code == 400
    assert "Name the body" in answer.content.decode()


def test_study_create_takes_the_fields_as_the_command_does(implicature):
    study = study_create(
        name="by service", benchmark="implicature", design={"units": 1, "unit_size": 10}, status=Study.Status.DRAFT,
        ethics_exemption="anonymous online task", population="crowd workers",
    )  # fmt: skip
    assert (study.ethics_exemption, study.population) == ("anonymous online task", "crowd workers")
    assert study.power_analysis["units"] == 1


def test_the_command_takes_the_fields_and_prints_the_power_analysis(implicature):
    from io import StringIO

    from django.core.management import CommandError, call_command

    out = StringIO()
    call_command(
        "create_study", "--benchmark", "implicature", "--name", "by command", "--units", "2", "--unit-size", "30",
        "--per-unit", "10", "--population", "UK adults", "--ethics-body", "UREC", "--ethics-reference", "R-9",
        "--paper-url", "https://example.org/p", stdout=out,
    )  # fmt: skip
    lines = out.getvalue().splitlines()
    study = Study.objects.get(name="by command")
    assert (study.population, study.ethics_body, study.ethics_reference, study.paper_url) == (
        "UK adults",
        "UREC",
        "R-9",
        "https://example.org/p",
    )
    assert lines[-2] == describe(study.power_analysis)
    assert lines[-2].startswith("Power analysis before launch: with 20 people in 2 units of 30 items each")
    assert lines[-1].startswith("http")  # the participant link stays the last line
    with pytest.raises(CommandError, match="--ethics-body"):
        call_command("create_study", "--benchmark", "implicature", "--name", "x", "--ethics-reference", "R-1")
    with pytest.raises(CommandError, match="not a link"):
        call_command("create_study", "--benchmark", "implicature", "--name", "y", "--paper-url", "nowhere")


def test_the_papers_design_with_the_published_variance_gives_the_figures_the_guide_prints(implicature):
    analysis = power.design_power(benchmark="implicature", places=[5] * 4, unit_sizes=[150] * 4)
    assert analysis["source"]["components"] == {"baseline": 0.862333, "person_sd": 0.2506, "item_sd": 2.6021}
    shown = [round(100 * abs(analysis[key]), 1) for key in ("detectable_gap", "detectable_above", "detectable_below")]
    assert shown == [3.7, 3.3, 3.7]
    assert (round(100 * analysis["human_half_width"], 1), round(100 * analysis["human_half_width_items"], 1)) == (
        1.5,
        2.1,
    )
