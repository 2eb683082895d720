"""An exclusion and a Prolific decision kept in step: including someone rejected on Prolific, or
excluding someone approved or paid a bonus, is warned about where it happens, and both lists filter
on the disagreement; the participant's page shows their submission, decision and bonus."""

from __future__ import annotations

import pytest

from prolific.bonuses import prolific_bonuses_pay
from prolific.review import prolific_review
from prolific.services import prolific_study_configure, prolific_study_create
from tests.factories import small_study
from tests.prolific.helpers import arrive, failing_checks

pytestmark = pytest.mark.django_db
PARTICIPANTS = "/admin/studies/participant/"
SUBMISSIONS = "/admin/prolific/prolificsubmission/"


@pytest.fixture
def reviewed(researcher, implicature, standin):
    """Two participants reviewed and paid: A1 careful (approved, bonus), A2 failing the checks (rejected)."""
    study = small_study(
        "kept in step",
        unit_size=2,
        units=1,
        per_unit=4,
        attention_checks=2,
        exclude_at=2,
        estimated_minutes=10,
        owner=researcher,
    )
    found = prolific_study_create(study=study)
    prolific_study_configure(prolific_study=found, bonus_per_correct_pence=5)
    people = []
    for n, choose in ((1, None), (2, failing_checks)):
        bot, submission = arrive(standin, study, found.prolific_id, n)
        bot.complete(choose)
        standin.submission_set(submission, "AWAITING REVIEW", bot.participant.completion_code())
        people.append(bot.participant)
    prolific_review(prolific_study=found)
    prolific_bonuses_pay(prolific_study=found)
    return study, people


def _messages(page) -> list[str]:
    return [str(message) for message in page.context["messages"]]


def _listed(client, url: str, query: str) -> list[str]:
    page = client.get(f"{url}?{query}")
    assert page.status_code == 200
    rows = page.context["cl"].result_list
    return sorted(getattr(row, "pseudonym", None) or row.participant.pseudonym for row in rows)


def test_including_someone_rejected_on_prolific_warns_and_the_lists_show_the_disagreement(reviewed, researcher_client):
    _, (careful, careless) = reviewed
    assert _listed(researcher_client, PARTICIPANTS, "mismatch=yes") == []
    # warned before anything changes, then again once done
    asked = researcher_client.post(PARTICIPANTS, {"action": "include_participants", "_selected_action": [careless.pk]})
    assert f"{careless.pseudonym} was rejected on Prolific" in asked.content.decode()
    careless.refresh_from_db()
    assert careless.excluded
    page = researcher_client.post(
        PARTICIPANTS,
        {"action": "include_participants", "_selected_action": [careless.pk], "apply": "1"},
        follow=True,
    )
    warnings = [m for m in _messages(page) if "rejected on Prolific" in m]
    assert warnings and warnings[0].startswith(f"{careless.pseudonym} was rejected on Prolific")
    assert _listed(researcher_client, PARTICIPANTS, "mismatch=yes") == [careless.pseudonym]
    assert _listed(researcher_client, SUBMISSIONS, "mismatch=yes") == [careless.pseudonym]
    listing = researcher_client.get(SUBMISSIONS).content.decode()
    assert f"/admin/studies/participant/{careless.pk}/change/" in listing  # the submission links to the participant
    assert "rejected on Prolific, but included" in listing
    detail = researcher_client.get(f"{PARTICIPANTS}{careless.pk}/change/").content.decode()
    assert "decision: Reject" in detail and "Disagrees with the exclusion: rejected on Prolific" in detail


def test_excluding_someone_approved_and_paid_warns_before_and_after(reviewed, researcher_client):
    _, (careful, _) = reviewed
    asked = researcher_client.post(PARTICIPANTS, {"action": "exclude_with_reason", "_selected_action": [careful.pk]})
    html = asked.content.decode()
    assert 'id="decision-warnings"' in html
    assert f"{careful.pseudonym} was approved on Prolific as a kept participant and given a bonus of £0.10" in html
    page = researcher_client.post(
        PARTICIPANTS,
        {
            "action": "exclude_with_reason",
            "_selected_action": [careful.pk],
            "reason": "answered at random",
            "apply": "1",
        },
        follow=True,
    )
    assert any("given a bonus of £0.10: excluded from the results, they disagree" in m for m in _messages(page))
    assert _listed(researcher_client, PARTICIPANTS, "mismatch=yes") == [careful.pseudonym]
    detail = researcher_client.get(f"{PARTICIPANTS}{careful.pk}/change/").content.decode()
    assert "bonus: £0.10" in detail and "decision: Approve" in detail


def test_the_submission_list_shows_the_exclusion_reason_and_flags(reviewed, researcher_client):
    _, (_, careless) = reviewed
    listing = researcher_client.get(SUBMISSIONS).content.decode()
    assert 'yes: <span title="failed 2 attention checks (threshold 2)">' in listing
    assert f"{careless.pseudonym} · kept in step" in listing


def test_the_flag_list_names_the_participant_with_their_study_and_links_to_them(reviewed, researcher_client):
    from prolific.models import ProlificFlag

    study, (careful, _) = reviewed
    ProlificFlag.objects.create(
        prolific_study=study.prolific,
        kind=ProlificFlag.Kind.NO_SUBMISSION,
        subject=careful.pseudonym,
        participant=careful,
        detail="completed with no submission",
    )
    listing = researcher_client.get("/admin/prolific/prolificflag/").content.decode()
    link = f'<a href="/admin/studies/participant/{careful.pk}/change/">{careful.pseudonym} · kept in step</a>'
    assert link in listing
