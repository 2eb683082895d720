"""The Prolific pages of the admin in a browser, for staff without `studies.view_identity` and for a
holder: flags and submissions by pseudonym and Parity's numbers, the ids for the holder only, and a
lookup guessing a PID's first characters refused."""

from __future__ import annotations

import pytest

from studies.models import Study
from tests.browser.helpers import sign_in
from tests.personas import assistant, researcher
from tests.prolific.helpers import PROLIFIC_PID, SUBMISSION_ID, prolific_study, through_prolific

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_staff_without_the_identity_permission_read_flags_and_submissions_by_pseudonym(
    live_server, page, artifacts, implicature_source
):
    from annotation.services import benchmark_import

    benchmark_import(name="implicature", source=implicature_source)
    owner = researcher("ada")
    trace = through_prolific(prolific_study("Implicature on Prolific", owner=owner))
    study = Study.objects.get(pk=trace.participant.study_id)
    helper = assistant("bea", on=[study])

    page.set_viewport_size({"width": 1920, "height": 900})  # the lists' every column on the screen
    sign_in(page, live_server, helper)
    page.goto(f"{live_server.url}/admin/prolific/prolificflag/")
    flags = page.locator("#result_list").inner_text()
    record = trace.participant.prolific_submissions.get()
    assert f"submission #{record.pk}" in flags and trace.participant.pseudonym in flags
    assert SUBMISSION_ID not in page.content() and PROLIFIC_PID not in page.content()
    page.screenshot(path=str(artifacts / "admin-flags-pseudonymous.png"), full_page=True)
    page.goto(f"{live_server.url}/admin/prolific/prolificsubmission/")
    assert trace.participant.pseudonym in page.locator("#result_list").inner_text()
    assert PROLIFIC_PID not in page.content()
    refused = page.goto(f"{live_server.url}/admin/prolific/prolificsubmission/?prolific_pid__startswith=5f0")
    assert refused is not None and refused.status == 400

    sign_in(page, live_server, owner)
    page.goto(f"{live_server.url}/admin/prolific/prolificflag/")
    assert SUBMISSION_ID in page.locator("#result_list").inner_text()
    allowed = page.goto(f"{live_server.url}/admin/prolific/prolificsubmission/?prolific_pid__startswith=5f0")
    assert allowed is not None and allowed.status == 200
    assert PROLIFIC_PID in page.locator("#result_list").inner_text()
    page.screenshot(path=str(artifacts / "admin-submissions-identity.png"), full_page=True)
