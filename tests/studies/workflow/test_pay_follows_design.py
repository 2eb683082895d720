"""The time and reward follow the design until the researcher types their own: on the new-study form
(without a script too), on a draft's edit, through the API and `create_study`; a reward under
Prolific's £6/h minimum, at the typed time or at the design's estimate when longer, is refused with
the figure wherever it is saved."""

from __future__ import annotations

import pytest
from django.core.management import CommandError, call_command

from studies.errors import StudyError
from studies.models import Study
from studies.setup.drafts import study_draft_update
from studies.setup.studies import study_create
from tests.api.conftest import token_client
from tests.personas import researcher
from tests.studies.workflow.helpers import create, edit_data

pytestmark = pytest.mark.django_db

#: the issue's draft: 1 unit of 10 items and 2 checks, 12 answers × 12 s + 2 min ≈ 5 min, £0.75 at £9/h
SMALL = {"units": 1, "unit_size": 10, "per_unit": 2, "attention_checks": 2, "exclude_at": 2}
#: the paper's design: 150 items and 3 checks, 153 answers ≈ 33 min, £4.95
PAPER = {"units": 4, "unit_size": 150, "per_unit": 5, "attention_checks": 3, "exclude_at": 2}


def _pay(name: str) -> tuple[int, int]:
    study = Study.objects.get(name=name)
    return study.estimated_minutes, study.reward_pence


def _small_draft(client, name: str = "grows") -> Study:
    assert create(client, "implicature", name=name, **SMALL).status_code == 302
    return Study.objects.get(name=name)


def test_a_new_study_posted_without_a_script_takes_its_designs_estimate(researcher_client, implicature):
    # the form shows the paper's 33 min and £4.95; the design is made smaller and nothing else typed
    _small_draft(researcher_client, "small")
    assert _pay("small") == (5, 75)


def test_an_edited_draft_follows_its_new_design_both_ways(researcher_client, implicature):
    draft = _small_draft(researcher_client)
    page = researcher_client.get(f"/studies/{draft.pk}/edit/").content.decode()
    assert 'data-follows-estimate="true"' in page
    # the edit form as shown (5 min, £0.75), the design made the paper's: 33 min and £4.95 are saved
    response = researcher_client.post(f"/studies/{draft.pk}/edit/", edit_data(researcher_client, draft, **PAPER))
    assert response.status_code == 302, response.content.decode()[:2000]
    assert _pay("grows") == (33, 495)
    # and back down to 5 items: 7 answers ≈ 4 min, £0.60
    draft.refresh_from_db()
    small = {**PAPER, "unit_size": 5, "attention_checks": 2}
    assert (
        researcher_client.post(f"/studies/{draft.pk}/edit/", edit_data(researcher_client, draft, **small)).status_code
        == 302
    )
    assert _pay("grows") == (4, 60)


def test_the_researchers_own_time_and_reward_stay_and_an_underpaid_design_is_refused(researcher_client, implicature):
    draft = _small_draft(researcher_client)
    url = f"/studies/{draft.pk}/edit/"
    # typed: 20 minutes for £3.00 (£9/h); the design grows: their figures stay
    data = edit_data(researcher_client, draft, estimated_minutes=20, reward="3.00", unit_size=20)
    assert researcher_client.post(url, data).status_code == 302
    assert _pay("grows") == (20, 300)
    draft.refresh_from_db()
    assert 'data-follows-estimate="false"' in researcher_client.get(url).content.decode()
    # the paper's design takes ~33 minutes: £3.00 for it is £5.45/h, under the minimum, refused with the figure
    page = researcher_client.post(url, edit_data(researcher_client, draft, **PAPER))
    html = page.content.decode()
    assert page.status_code == 400
    assert (
        "£3.00 for this design&#x27;s estimated 33 minutes is £5.45/h, below Prolific&#x27;s minimum of £6/h "
        "(though 20 minutes were given): pay at least £3.30" in html
    )
    assert "at the design's estimated 33 minutes" in html  # the implied pay says what it is judged on
    assert _pay("grows") == (20, 300) and Study.objects.get(pk=draft.pk).design["unit_size"] == 20


def test_the_issues_draft_is_refused_not_saved_at_five_minutes(researcher_client, implicature):
    # 6 minutes and £0.90 (£9/h) typed as one's own on the paper's design: participants would get £1.64/h
    draft = _small_draft(researcher_client)
    data = edit_data(researcher_client, draft, estimated_minutes=6, reward="0.90", **PAPER)
    page = researcher_client.post(f"/studies/{draft.pk}/edit/", data)
    assert page.status_code == 400
    assert "£0.90 for this design&#x27;s estimated 33 minutes is £1.64/h" in page.content.decode()
    assert _pay("grows") == (5, 75) and Study.objects.get(pk=draft.pk).design["unit_size"] == 10


def test_the_services_follow_the_design_and_refuse_underpay(implicature):
    owner = researcher()
    study = study_create(name="service", benchmark="implicature", design=SMALL, status="draft", owner=owner)
    assert (study.estimated_minutes, study.reward_pence) == (5, 75)
    study = study_draft_update(study=study, design=PAPER)
    assert (study.estimated_minutes, study.reward_pence) == (33, 495)
    with pytest.raises(StudyError, match=r"£0\.75 for this design's estimated 33 minutes is £1\.36/h"):
        study_create(name="cheap", benchmark="implicature", design=PAPER, estimated_minutes=5, reward_pence=75)
    with pytest.raises(StudyError, match=r"£1\.00 for 40 minutes is £1\.50/h"):
        study_draft_update(study=study, estimated_minutes=40, reward_pence=100)
    assert not Study.objects.filter(name="cheap").exists() and _pay("service") == (33, 495)


def test_the_api_follows_the_design_and_refuses_underpay_with_the_figure(implicature):
    client = token_client(researcher())
    response = client.post(
        "/api/studies/create/", {"name": "api", "benchmark": "implicature", "design": SMALL}, format="json"
    )
    assert response.status_code == 201, response.json()
    assert _pay("api") == (5, 75)
    response = client.post(
        "/api/studies/create/",
        {"name": "api cheap", "benchmark": "implicature", "design": PAPER, "estimated_minutes": 5, "reward_pence": 75},
        format="json",
    )
    assert response.status_code == 400
    assert "£0.75 for this design's estimated 33 minutes is £1.36/h" in response.json()["reward_pence"][0]
    # a time given without a reward is paid at £9/h
    response = client.post(
        "/api/studies/create/",
        {"name": "api timed", "benchmark": "implicature", "design": SMALL, "estimated_minutes": 10},
        format="json",
    )
    assert response.status_code == 201 and _pay("api timed") == (10, 150)


def test_create_study_follows_the_design_and_refuses_underpay(implicature, capsys):
    call_command("create_study", "--benchmark", "implicature", "--name", "command", "--draft", *_flags(SMALL))
    assert _pay("command") == (5, 75)
    assert "Time and reward: 5 min, £0.75 (£9.00/h)" in capsys.readouterr().out
    with pytest.raises(CommandError, match=r"£0\.75 for this design's estimated 33 minutes is £1\.36/h"):
        call_command(
            "create_study", "--benchmark", "implicature", "--name", "cheap", "--minutes", "5", "--reward", "0.75"
        )
    call_command("create_study", "--benchmark", "implicature", "--name", "own", "--minutes", "40", "--reward", "6")
    assert _pay("own") == (40, 600)


def _flags(design: dict[str, int]) -> list[str]:
    return [part for key, value in design.items() for part in (f"--{key.replace('_', '-')}", str(value))]
