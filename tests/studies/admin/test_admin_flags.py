"""The participant admin's review flags (fast, straight-lining, pasting, model-likeness) and exclusion
with a reason."""

from __future__ import annotations

import pytest

from studies.access import VIEWER_PERMISSIONS
from studies.models import Participant, Study
from tests.conftest import committed_world_wipe
from tests.personas import signed_in, user_with
from tests.studies.monitoring import busy_study, pseudonym

pytestmark = pytest.mark.django_db
CHANGELIST = "/admin/studies/participant/"


@pytest.fixture(scope="module")
def _busy_world(django_db_setup, django_db_blocker):
    """The busy study and its owner, built once for the module and committed: walking its ten
    participants over HTTP took 5-10 s per test. Each test still runs in a transaction of its own,
    so what one excludes or flags is rolled back before the next."""
    from tests import personas
    from tests.conftest import dataset

    dataset("implicature")
    with django_db_blocker.unblock():
        owner = personas.researcher()
        study = busy_study(owner=owner)
        yield owner.pk, study.pk
        committed_world_wipe()


@pytest.fixture
def researcher(_busy_world, db):
    """The busy study's owner (the suite's researcher persona), from the module's committed data."""
    from django.contrib.auth import get_user_model

    return get_user_model().objects.get(pk=_busy_world[0])


@pytest.fixture
def busy(_busy_world, implicature):
    return Study.objects.get(pk=_busy_world[1])


def _listed(client, query: str) -> list[str]:
    page = client.get(f"{CHANGELIST}?{query}")
    assert page.status_code == 200
    return sorted(participant.pseudonym for participant in page.context["cl"].result_list)


def test_the_flags_are_list_filters(busy, researcher_client):
    straight, fast = pseudonym(busy, 5), pseudonym(busy, 6)
    assert _listed(researcher_client, "flag=straight_lining") == [straight]
    assert _listed(researcher_client, "flag=fast") == [fast]
    assert _listed(researcher_client, "flag=pasted") == []
    assert _listed(researcher_client, "flag=any") == sorted([straight, fast])
    combined = f"flag=any&study__id__exact={busy.pk}&status=completed"
    assert _listed(researcher_client, combined) == sorted([straight, fast])
    assert len(_listed(researcher_client, "")) == 10
    assert "flagged for review" in researcher_client.get(CHANGELIST).content.decode()


def test_another_researchers_flagged_participants_are_not_listed(busy):
    assert _listed(signed_in(user_with("other")), "flag=any") == []


def test_the_action_asks_for_a_reason_suggesting_the_flags_then_excludes(busy, researcher_client):
    chosen = list(Participant.objects.filter(study=busy, prolific_pid__in=[f"{5:024x}", f"{6:024x}"]))
    ids = [p.pk for p in chosen]
    asked = researcher_client.post(CHANGELIST, {"action": "exclude_with_reason", "_selected_action": ids})
    html = asked.content.decode()
    assert asked.status_code == 200 and "Exclude participants with a reason" in html
    # no flag here is a ground for rejecting on Prolific (only a 3-SD fast completion is): the reason says so;
    # the scripted fast responder posts without the page's script, sooner than its items can be read
    assert (
        'value="excluded from the analysis after review: fast items, straight lining, bot speed; '
        'for review: not a Prolific rejection reason"' in html
    )
    assert not Participant.objects.filter(pk__in=ids, excluded=True).exists(), "nothing happens before the reason"
    refused = researcher_client.post(
        CHANGELIST, {"action": "exclude_with_reason", "_selected_action": ids, "apply": "Exclude", "reason": ""}
    )
    assert refused.status_code == 200 and "This field is required" in refused.content.decode()
    assert not Participant.objects.filter(pk__in=ids, excluded=True).exists()
    done = researcher_client.post(
        CHANGELIST,
        {
            "action": "exclude_with_reason",
            "_selected_action": ids,
            "apply": "Exclude",
            "reason": "answered in under a second",
        },
    )
    assert done.status_code == 302
    assert set(Participant.objects.filter(pk__in=ids).values_list("excluded", "exclusion_reason")) == {
        (True, "answered in under a second")
    }


def test_the_action_needs_the_exclude_permission(busy):
    viewer = user_with("viewer", VIEWER_PERMISSIONS)
    busy.collaborators.add(viewer)
    client = signed_in(viewer)
    assert "exclude_with_reason" not in client.get(CHANGELIST).content.decode()
    target = Participant.objects.get(study=busy, prolific_pid=f"{5:024x}")
    client.post(
        CHANGELIST,
        {"action": "exclude_with_reason", "_selected_action": [target.pk], "apply": "Exclude", "reason": "speeding"},
    )
    target.refresh_from_db()
    assert not target.excluded


MODEL_LIKE = {
    "model_like": {
        "model": "smollm2 (template 2, k=0)",
        "agreement_model": 0.81,
        "evidence": "AC1 0.81 with smollm2 (template 2, k=0) over 150 items; people with each other "
        "0.52–0.78 (median 0.66); this person with the others 0.08",
    }
}


def test_stored_model_likeness_is_a_filter_and_shows_with_its_figures(busy, researcher_client):
    from studies.participants.quality_signals import participants_signals_set

    target = Participant.objects.get(study=busy, prolific_pid=f"{7:024x}")
    assert participants_signals_set(study=busy, names=["model_like"], signals={target.pk: MODEL_LIKE}) == 1
    assert _listed(researcher_client, "flag=model") == [target.pseudonym]
    assert target.pseudonym in _listed(researcher_client, "flag=any")
    page = researcher_client.get(f"{CHANGELIST}{target.pk}/change/").content.decode()
    assert "AC1 0.81 with smollm2 (template 2, k=0) over 150 items" in page
    asked = researcher_client.post(CHANGELIST, {"action": "exclude_with_reason", "_selected_action": [target.pk]})
    html = asked.content.decode()
    assert "this person with the others 0.08" in html
    assert (
        'value="excluded from the analysis after review: model like; for review: not a Prolific rejection reason"'
        in html
    )
    # computed again without the flag: it goes, and the admin stops listing them
    assert participants_signals_set(study=busy, names=["model_like"], signals={}) == 1
    assert _listed(researcher_client, "flag=model") == []


def test_a_computation_replaces_only_its_own_signals(busy):
    from studies.participants.quality_signals import participants_signals_set

    target = Participant.objects.get(study=busy, prolific_pid=f"{7:024x}")
    text = {"model_text": {"evidence": "closer to m on 5 of 6 items"}}
    participants_signals_set(study=busy, names=["model_text"], signals={target.pk: text})
    participants_signals_set(study=busy, names=["model_like"], signals={target.pk: MODEL_LIKE})
    assert participants_signals_set(study=busy, names=["model_like"], signals={target.pk: MODEL_LIKE}) == 0
    target.refresh_from_db()
    assert target.review_signals == {**text, **MODEL_LIKE}
