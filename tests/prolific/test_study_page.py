"""The study page runs the study on Prolific: create it there, publish (once live here), pause,
resume and stop; the Prolific study's id, status and places are shown. Only the owner and
collaborators who may change the study press the buttons."""

from __future__ import annotations

from prolific.models import ProlificStudy
from studies.models import Study
from studies.setup.studies import study_set_status
from tests import personas
from tests.prolific.helpers import prolific_study


def _press(client, study, action: str) -> str:
    return client.post(f"/studies/{study.pk}/prolific/", {"action": action}, follow=True).content.decode()


def test_the_researcher_creates_publishes_pauses_resumes_and_stops_the_study_from_its_page(
    researcher_client, researcher, implicature, standin
):
    study = prolific_study(owner=researcher, status=Study.Status.DRAFT)
    page = researcher_client.get(f"/studies/{study.pk}/").content.decode()
    assert 'id="prolific-create"' in page and "Not on Prolific yet" in page

    page = _press(researcher_client, study, "create")
    found = ProlificStudy.objects.get(study=study)
    assert standin.studies[found.prolific_id]["total_available_places"] == 4 == found.places
    assert f'<code id="prolific-id">{found.prolific_id}</code>' in page and 'data-status="UNPUBLISHED"' in page
    assert 'id="prolific-create"' not in page and 'id="prolific-publish"' in page

    page = _press(researcher_client, study, "publish")
    assert "is not open in Parity" in page and standin.studies[found.prolific_id]["status"] == "UNPUBLISHED"
    study_set_status(study=study, status=Study.Status.LIVE)
    page = _press(researcher_client, study, "publish")
    assert standin.studies[found.prolific_id]["status"] == "ACTIVE" and 'id="prolific-pause"' in page
    _press(researcher_client, study, "pause")
    assert standin.studies[found.prolific_id]["status"] == "PAUSED"
    page = _press(researcher_client, study, "start")
    assert standin.studies[found.prolific_id]["status"] == "ACTIVE" and "On Prolific: published" in page
    page = _press(researcher_client, study, "stop")
    assert standin.studies[found.prolific_id]["status"] == "AWAITING REVIEW"
    section = page.split('<section id="prolific-study">')[1].split("</section>")[0]
    assert 'data-status="AWAITING REVIEW"' in section and "<button" not in section


def test_an_error_from_prolific_is_said_and_changes_nothing(researcher_client, researcher, implicature, standin):
    study = prolific_study(owner=researcher)
    _press(researcher_client, study, "create")
    found = ProlificStudy.objects.get(study=study)
    standin.fail("POST", "/transition/", "500")
    page = _press(researcher_client, study, "publish")
    assert "Prolific: Prolific refused POST" in page
    found.refresh_from_db()
    assert found.status == ProlificStudy.Status.UNPUBLISHED
    assert standin.studies[found.prolific_id]["status"] == "UNPUBLISHED"


def test_without_a_token_the_page_says_how_and_nothing_is_created(researcher_client, researcher, implicature, settings):
    settings.PROLIFIC_API_TOKEN = ""
    study = prolific_study(owner=researcher)
    page = researcher_client.get(f"/studies/{study.pk}/").content.decode()
    assert "Set <code>PROLIFIC_API_TOKEN</code>" in page and 'id="prolific-create"' not in page
    page = _press(researcher_client, study, "create")
    assert "Prolific:" in page and not ProlificStudy.objects.exists()


def test_only_those_who_may_change_the_study_press_the_buttons(client, researcher, implicature, standin):
    study = prolific_study(owner=researcher)
    stranger = personas.researcher(username="stranger")
    viewer = personas.assistant(username="viewer", names=["studies.view_study"], on=[study])
    client.force_login(stranger)
    assert client.post(f"/studies/{study.pk}/prolific/", {"action": "create"}).status_code == 404
    client.force_login(viewer)
    assert client.post(f"/studies/{study.pk}/prolific/", {"action": "create"}).status_code == 403
    assert 'id="prolific-create"' not in client.get(f"/studies/{study.pk}/").content.decode()
    assert not ProlificStudy.objects.exists() and not standin.studies


def test_the_page_shows_prolific_s_status_as_last_read_and_when(researcher_client, researcher, implicature, standin):
    from prolific.services import prolific_study_create, prolific_sync

    study = prolific_study(owner=researcher)
    found = prolific_study_create(study=study)
    standin.studies[found.prolific_id]["status"] = "SCHEDULED"  # scheduled on Prolific's own site
    prolific_sync(prolific_study=found)
    found.refresh_from_db()
    page = researcher_client.get(f"/studies/{study.pk}/").content.decode()
    assert 'data-status="SCHEDULED">Scheduled to publish</span>' in page
    assert (
        f'<span id="prolific-status-at">status as Prolific gave it at {found.status_at:%Y-%m-%d %H:%M} UTC</span>'
        in page
    )


def _follow(page: str) -> str:
    section = page.split('<section id="prolific-study">')[1].split("</section>")[0]
    return section.split('<div id="prolific-follow"')[1].split("</div>")[0] if "prolific-follow" in section else ""


def test_pausing_and_closing_in_parity_offers_the_same_on_prolific_with_who_it_affects(
    researcher_client, researcher, implicature, standin
):
    from tests.prolific.helpers import arrive

    study = prolific_study(owner=researcher, status=Study.Status.LIVE)
    _press(researcher_client, study, "create")
    _press(researcher_client, study, "publish")
    found = ProlificStudy.objects.get(study=study)
    working, _ = arrive(standin, study, found.prolific_id, 1)
    working.start_items()
    done, _ = arrive(standin, study, found.prolific_id, 2)
    done.complete()
    page = researcher_client.get(f"/studies/{study.pk}/").content.decode()
    assert _follow(page) == ""  # live here, recruiting there: they agree

    researcher_client.post(f"/studies/{study.pk}/status/", {"status": Study.Status.PAUSED})
    shown = _follow(researcher_client.get(f"/studies/{study.pk}/").content.decode())
    assert (
        "Paused here, still recruiting on Prolific (2 of 4 places open, 1 person working, 1 completed): Prolific "
        "keeps sending people whom Parity turns away. Pausing it on Prolific stops new arrivals; those working may "
        "finish." in shown
    )
    assert standin.studies[found.prolific_id]["status"] == "ACTIVE"  # nothing sent before it is pressed
    page = _press(researcher_client, study, "pause")
    assert standin.studies[found.prolific_id]["status"] == "PAUSED" and _follow(page) == ""

    researcher_client.post(f"/studies/{study.pk}/status/", {"status": Study.Status.LIVE})
    shown = _follow(researcher_client.get(f"/studies/{study.pk}/").content.decode())
    assert "Live here, paused on Prolific (2 of 4 places open" in shown and 'id="prolific-follow-start"' in shown
    _press(researcher_client, study, "start")

    researcher_client.post(f"/studies/{study.pk}/status/", {"status": Study.Status.CLOSED})
    shown = _follow(researcher_client.get(f"/studies/{study.pk}/").content.decode())
    assert "Closed here, published (recruiting) on Prolific" in shown and 'id="prolific-follow-stop"' in shown
    page = _press(researcher_client, study, "stop")
    assert standin.studies[found.prolific_id]["status"] == "AWAITING REVIEW" and _follow(page) == ""
