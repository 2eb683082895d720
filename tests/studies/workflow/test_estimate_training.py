"""The time and reward estimated with the training: practice questions, comprehension questions and
"why?" boxes each add their assumed time (`parity.benchmarks.timing`), in the form's live estimate,
in a created study and in a draft's edit; and a design the items drawn cannot fill is said truly,
on its field, and by the live estimate before anything is saved."""

from __future__ import annotations

import math
import re

import pytest

from parity.benchmarks.timing import (
    COMPREHENSION_SECONDS,
    EXPLANATION_SECONDS,
    PRACTICE_FEEDBACK_SECONDS,
    SETUP_SECONDS,
)
from studies.design.pay import reward_for
from studies.models import Study
from tests.api.conftest import token_client
from tests.personas import researcher
from tests.studies.workflow.helpers import create, edit_data, form_data

pytestmark = pytest.mark.django_db

PRACTICE = "\n\n".join(
    f"{question}\n- yes\n- no\n= {right}"
    for question, right in (("Is the sky blue?", "yes"), ("Is grass red?", "no"), ("Is snow white?", "yes"))
)
COMPREHENSION = "What do you answer?\n- yes or no\n- a story\n= yes or no\n\nMay you look things up?\n- yes\n- no\n= no"
#: 1 unit of 10 items and 2 attention checks: 12 answers of implicature's ~12 s
DESIGN = {"units": 1, "unit_size": 10, "per_unit": 2, "attention_checks": 2, "exclude_at": 2}


def _estimate(html: str) -> str:
    found = re.search(r'<strong id="time-estimate-text">(.*?)</strong>', html, re.S)
    assert found, "no estimate on the page"
    return found.group(1)


def _minutes(answers: int, practice: int, comprehension: int, explanations: int) -> int:
    seconds = (
        answers * 12
        + practice * (12 + PRACTICE_FEEDBACK_SECONDS)
        + comprehension * COMPREHENSION_SECONDS
        + explanations * EXPLANATION_SECONDS
        + SETUP_SECONDS
    )
    return math.ceil(seconds / 60)


def test_the_live_estimate_adds_practice_comprehension_and_explanations(researcher_client, implicature):
    data = form_data(
        researcher_client,
        "implicature",
        **DESIGN,
        practice_questions=PRACTICE,
        comprehension_questions=COMPREHENSION,
        explanations="every",
        estimate_only="1",
    )
    page = researcher_client.post("/studies/new/?benchmark=implicature", data, headers={"HX-Request": "true"})
    html = page.content.decode()
    assert page.status_code == 200 and 'id="study-form"' not in html  # the fragment alone, nothing saved
    minutes = _minutes(12, 3, 2, 12)
    assert _estimate(html).startswith(
        f"12 answers × ~12 s + 3 practice questions × ~{12 + PRACTICE_FEEDBACK_SECONDS} s"
        f" + 2 comprehension questions × ~{COMPREHENSION_SECONDS} s + 12 explanations × ~{EXPLANATION_SECONDS} s"
        f" + 2 min consent and instructions ≈ {minutes} min"
    )
    assert f'data-minutes="{minutes}"' in html
    assert "Assumed, as no paper measured them" in html and not Study.objects.exists()


def test_a_study_created_with_training_is_paid_for_it(researcher_client, implicature):
    page = create(
        researcher_client,
        "implicature",
        name="trained",
        **DESIGN,
        practice_questions=PRACTICE,
        comprehension_questions=COMPREHENSION,
        explanations="nth",
        explanation_every=5,
    )
    assert page.status_code == 302, page.content.decode()
    study = Study.objects.get(name="trained")
    practice, comprehension = len(study.practice_questions), len(study.comprehension_questions)
    minutes = _minutes(12, practice, comprehension, 12 // study.explanation_every)
    assert (practice, comprehension) == (3, 2) and minutes > _minutes(12, 0, 0, 0)
    assert (study.estimated_minutes, study.reward_pence) == (minutes, reward_for(minutes))


def test_a_draft_whose_training_is_added_follows_the_longer_estimate(researcher_client, implicature):
    assert create(researcher_client, "implicature", name="plain", **DESIGN).status_code == 302
    study = Study.objects.get(name="plain")
    assert study.estimated_minutes == _minutes(12, 0, 0, 0)
    data = edit_data(researcher_client, study, explanations="every", comprehension_questions=COMPREHENSION)
    # the page fills the time and reward from the live estimate as the form changes
    estimate = researcher_client.post(
        f"/studies/{study.pk}/edit/", {**data, "estimate_only": "1"}, headers={"HX-Request": "true"}
    ).content.decode()
    minutes = _minutes(12, 0, 2, 12)
    assert f'data-minutes="{minutes}"' in estimate
    data["estimated_minutes"], data["reward"] = minutes, f"{reward_for(minutes) / 100:.2f}"
    assert researcher_client.post(f"/studies/{study.pk}/edit/", data).status_code == 302
    study.refresh_from_db()
    assert (study.estimated_minutes, study.reward_pence) == (minutes, reward_for(minutes))


SAMPLED = {"units": 3, "unit_size": 15, "item_sampling": "random", "sample_size": 20, "sample_seed": 1}


def test_units_more_than_the_items_drawn_are_refused_on_items_to_draw_with_the_true_figures(
    researcher_client, implicature
):
    page = create(researcher_client, "implicature", name="drawn", **SAMPLED)
    assert page.status_code == 400 and not Study.objects.exists()
    message = "3 units of 15 items need 45 items; Items to draw is 20 (600 imported)"
    form = page.context["form"]
    assert form.errors["sample_size"] == [message] and not form.non_field_errors()
    assert ("Items to draw", "field-sample_size", message) in form.error_summary()


def test_units_more_than_the_items_imported_are_refused_on_the_unit_size(researcher_client, implicature):
    page = create(researcher_client, "implicature", name="big", units=5, unit_size=150)
    form = page.context["form"]
    assert form.errors["design_unit_size"] == ["5 units of 150 items need 750 test items; only 600 are imported"]


def test_the_live_estimate_warns_of_units_the_items_drawn_cannot_fill(researcher_client, implicature):
    data = form_data(researcher_client, "implicature", **SAMPLED, estimate_only="1")
    html = researcher_client.post(
        "/studies/new/?benchmark=implicature", data, headers={"HX-Request": "true"}
    ).content.decode()
    found = re.search(r'<p class="pay-bad" id="design-problem" role="alert">(.*?)</p>', html, re.S)
    assert found and "3 units of 15 items need 45 items; Items to draw is 20 (600 imported)" in found.group(1)
    fits = form_data(researcher_client, "implicature", **{**SAMPLED, "sample_size": 45}, estimate_only="1")
    html = researcher_client.post(
        "/studies/new/?benchmark=implicature", fits, headers={"HX-Request": "true"}
    ).content.decode()
    assert 'id="design-problem"' not in html and not Study.objects.exists()


def test_a_study_created_through_the_api_with_a_reward_only_takes_its_explanations_time(implicature):
    response = token_client(researcher()).post(
        "/api/studies/create/",
        {
            "name": "scripted",
            "benchmark": "implicature",
            "design": DESIGN,
            "explanations": "every",
            "reward_pence": 450,
        },
        format="json",
    )
    assert response.status_code == 201, response.json()
    study = Study.objects.get(name="scripted")
    assert (study.estimated_minutes, study.reward_pence) == (_minutes(12, 0, 0, 12), 450)
