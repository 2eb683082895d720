"""The admin: a study goes to Prolific through an action; the Prolific study's actions run the
services; submissions, flags and the bonus ledger are listed for the study's researchers only."""

from __future__ import annotations

from prolific.models import ProlificFlag, ProlificStudy
from prolific.services import prolific_study_create
from tests import personas
from tests.prolific.helpers import arrive, previewed_and_confirmed, prolific_study


def test_the_researcher_runs_a_study_on_prolific_from_the_admin(researcher_client, researcher, implicature, standin):
    study = prolific_study(owner=researcher)
    page = researcher_client.post(
        "/admin/studies/study/", {"action": "create_on_prolific", "_selected_action": [study.pk]}, follow=True
    )
    found = ProlificStudy.objects.get(study=study)
    assert f"draft {found.prolific_id} created on Prolific" in page.content.decode()
    researcher_client.post(
        "/admin/prolific/prolificstudy/", {"action": "publish_on_prolific", "_selected_action": [found.pk]}
    )
    assert standin.studies[found.prolific_id]["status"] == "ACTIVE"

    stranger = standin.submission_add(found.prolific_id, "f" * 24, status="AWAITING REVIEW")
    bot, submission = arrive(standin, study, found.prolific_id, 1)
    bot.complete()
    standin.submission_set(submission, "AWAITING REVIEW", study.completion_code)
    preview, page = previewed_and_confirmed(researcher_client, "review", [found.pk], cautions=True)
    assert "Nothing has been sent yet" in preview.content.decode()
    assert "approved 1, rejected 0" in page.content.decode()
    flags = researcher_client.get("/admin/prolific/prolificflag/").content.decode()
    assert "Submission with no Parity participant" in flags and stranger in flags
    researcher_client.post(
        "/admin/prolific/prolificflag/",
        {"action": "resolve", "_selected_action": list(ProlificFlag.objects.values_list("pk", flat=True))},
    )
    assert not ProlificFlag.objects.filter(resolved=False).exists()
    submissions = researcher_client.get("/admin/prolific/prolificsubmission/").content.decode()
    # the researcher holds studies.view_identity: the ids beside the pseudonym
    # (tests/studies/admin/test_identity_admin.py)
    assert "APPROVED" in submissions and submission in submissions

    standin.fail("POST", "/transition/", "500")
    page = researcher_client.post(
        "/admin/prolific/prolificstudy/", {"action": "stop_on_prolific", "_selected_action": [found.pk]}, follow=True
    )
    assert "could not stop: Prolific refused POST" in page.content.decode()
    assert standin.studies[found.prolific_id]["status"] == "ACTIVE"


def test_another_researcher_sees_none_of_it(client, researcher, implicature, standin):
    study = prolific_study(owner=researcher)
    found = prolific_study_create(study=study)
    subject = "submission-of-the-owners-study"  # long enough not to turn up inside a CSRF token by chance
    ProlificFlag.objects.create(prolific_study=found, kind=ProlificFlag.Kind.NO_SUBMISSION, subject=subject, detail="x")
    client.force_login(researcher)
    assert subject in client.get("/admin/prolific/prolificflag/").content.decode()
    other = personas.researcher(username="other")
    client.force_login(other)
    assert subject not in client.get("/admin/prolific/prolificflag/").content.decode()
    assert client.get(f"/admin/prolific/prolificstudy/{found.pk}/change/").status_code in (302, 404)


def test_the_researcher_sets_a_recruitment_target_in_the_admin(researcher_client, researcher, implicature, standin):
    found = prolific_study_create(study=prolific_study(owner=researcher))
    url = f"/admin/prolific/prolificstudy/{found.pk}/change/"
    form = {
        "reject_excluded": "on",
        "bonus_per_correct_pence": "0",
        "target_kind": "ci_width",
        "target_value": "5",
        "target_rule": "confidence_sequence",
        "target_step": "6",
        "max_spend_pence": "45000",
    }
    assert researcher_client.post(url, form).status_code == 302
    found.refresh_from_db()
    assert (found.target_kind, found.target_value, found.target_rule, found.target_step, found.max_spend_pence) == (
        "ci_width",
        5,
        "confidence_sequence",
        6,
        45000,
    )
    page = researcher_client.post(url, {**form, "max_spend_pence": ""}, follow=True).content.decode()
    assert '<li class="error">A recruitment target needs a positive value and a maximum spend</li>' in page
    found.refresh_from_db()
    assert found.max_spend_pence == 45000


def test_the_sync_says_prolific_s_status_the_approvals_sent_again_and_the_flags_open(
    researcher_client, researcher, implicature, standin
):
    from prolific.models import ProlificSubmission
    from prolific.review import prolific_review

    study = prolific_study(owner=researcher)
    found = prolific_study_create(study=study)
    submissions = []
    for n in (1, 2, 3):
        bot, submission = arrive(standin, study, found.prolific_id, n)
        bot.complete()
        submissions.append(submission)
    for submission in submissions[:2]:
        standin.submission_set(submission, "AWAITING REVIEW", study.completion_code)
    standin.bulk_async = True
    prolific_review(prolific_study=found)
    standin.pending_approvals.remove(submissions[1])  # accepted, never applied
    standin.bulk_apply()
    standin.time_out(submissions[2])
    page = researcher_client.post(
        "/admin/prolific/prolificstudy/", {"action": "sync", "_selected_action": [found.pk]}, follow=True
    )
    found.refresh_from_db()
    flags = ProlificFlag.objects.filter(prolific_study=found, resolved=False)
    assert [flag.kind for flag in flags] == [ProlificFlag.Kind.COMPLETED_TIMED_OUT]
    resent = ProlificSubmission.objects.filter(submission_id=submissions[1], approval_sends=2).count()
    said = [str(message) for message in page.context["messages"]]
    assert said == [
        f"{study}: 3 submissions pulled; on Prolific: {found.get_status_display().lower()}; {resent} approval "
        "sent again (accepted by Prolific but not applied); 1 flag open, listed under Prolific flags"
    ]


def test_a_participant_s_page_shows_the_flags_prolific_s_changes_raised_about_them(
    researcher_client, researcher, implicature, standin
):
    from prolific.services import prolific_sync

    study = prolific_study(owner=researcher)
    found = prolific_study_create(study=study)
    bot, submission = arrive(standin, study, found.prolific_id, 1)
    bot.complete()
    standin.time_out(submission)
    prolific_sync(prolific_study=found)
    [flag] = ProlificFlag.objects.filter(participant=bot.participant, resolved=False)
    page = researcher_client.get(f"/admin/studies/participant/{bot.participant.pk}/change/").content.decode()
    assert f"<li>flagged ({flag.get_kind_display()}): {flag.detail}</li>" in page
    ProlificFlag.objects.filter(pk=flag.pk).update(resolved=True)  # resolved: no longer shown
    page = researcher_client.get(f"/admin/studies/participant/{bot.participant.pk}/change/").content.decode()
    assert flag.detail not in page
