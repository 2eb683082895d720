"""The participant list as a reviewer uses it: which flag each row carries, minutes and answers
sortable, filters for tab-leavers, the canary and bots, units of the chosen study only, the filters
kept through "Exclude with a reason", and no bulk deletion; including again keeps the lifted
exclusion's reason in the audit trail."""

from __future__ import annotations

import pytest

from parity.stats.quality import behaviour
from studies.models import Participant, Response, Study, StudyEvent
from studies.participants.decisions import participants_include
from studies.setup.studies import study_set_status
from tests import personas
from tests.conftest import committed_world_wipe
from tests.factories import Bot, pid, small_study
from tests.studies.monitoring import busy_study, pseudonym

pytestmark = pytest.mark.django_db
CHANGELIST = "/admin/studies/participant/"


@pytest.fixture(scope="module")
def _busy_world(django_db_setup, django_db_blocker):
    """The busy study (one tab-leaver, one canary) and its owner, built once for the module and
    committed: walking its ten participants over HTTP takes seconds. Each test still runs in a
    transaction of its own, so what one excludes is rolled back before the next."""
    from tests.conftest import dataset

    dataset("implicature")
    with django_db_blocker.unblock():
        owner = personas.researcher()
        study = busy_study(owner=owner)
        hidden = {"behaviour": {"status": behaviour.RECORDED, "hidden": 1, "hidden_ms": 4000, "blurs": 1}}
        Response.objects.filter(participant__study=study, participant__prolific_pid=pid(3)).update(extra=hidden)
        canary = {"canary": True}
        Response.objects.filter(participant__study=study, participant__prolific_pid=pid(4)).update(extra=canary)
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
    return [participant.pseudonym for participant in page.context["cl"].result_list]


def test_the_list_says_which_flag_and_filters_tab_leavers_canary_and_bots(busy, researcher_client):
    assert _listed(researcher_client, "flag=left_tab") == [pseudonym(busy, 3)]
    assert _listed(researcher_client, "flag=canary") == [pseudonym(busy, 4)]
    assert pseudonym(busy, 6) in _listed(researcher_client, "flag=bots")
    assert pseudonym(busy, 2) not in _listed(researcher_client, "flag=bots")
    html = researcher_client.get(f"{CHANGELIST}?flag=left_tab").content.decode()
    assert '<span class="flag" title="left the study&#x27;s tab while answering">left tab</span>' in html
    assert f"{pseudonym(busy, 3)} · {busy.name}" in html  # pseudonyms repeat across studies: the study beside


def test_minutes_and_answers_sort(busy, researcher_client):
    page = researcher_client.get(CHANGELIST)
    columns = list(page.context["cl"].list_display)
    by_minutes = columns.index("duration")  # `o` counts the columns from 0, the checkbox first
    rows = researcher_client.get(f"{CHANGELIST}?o={by_minutes}").context["cl"].result_list
    durations = [row.duration_seconds for row in rows if row.duration_seconds is not None]
    assert durations == sorted(durations) and len(durations) >= 5
    # the answered column links to the review page: a function of the request's filters, named `answered`
    by_answers = next(n for n, column in enumerate(columns) if getattr(column, "__name__", column) == "answered")
    rows = researcher_client.get(f"{CHANGELIST}?o=-{by_answers}").context["cl"].result_list
    answered = [row.answered for row in rows]
    assert answered == sorted(answered, reverse=True)


def test_the_unit_filter_lists_the_units_of_the_chosen_study_only(busy, researcher, researcher_client):
    other = small_study("another study", units=3, unit_size=2, owner=researcher)

    def units(query: str) -> list[str]:
        page = researcher_client.get(f"{CHANGELIST}?{query}")
        spec = next(spec for spec in page.context["cl"].filter_specs if spec.title == "unit")
        return [label for _value, label in spec.lookup_choices]

    assert len(units(f"study__id__exact={busy.pk}")) == busy.units.count() == 2
    assert len(units(f"study__id__exact={other.pk}")) == 3
    assert len(units("")) == 5 and all(" · " in label for label in units(""))
    stranger = small_study("not mine", units=4, unit_size=2)
    assert not any(stranger.name in label for label in units(""))


def test_excluding_with_a_reason_keeps_the_lists_filters(busy, researcher_client):
    target = Participant.objects.get(study=busy, prolific_pid=pid(3))
    query = f"flag=left_tab&study__id__exact={busy.pk}"
    asked = researcher_client.post(
        f"{CHANGELIST}?{query}", {"action": "exclude_with_reason", "_selected_action": [target.pk]}
    )
    assert f'action="{CHANGELIST}?{query.replace("&", "&amp;")}"' in asked.content.decode()
    done = researcher_client.post(
        f"{CHANGELIST}?{query}",
        {"action": "exclude_with_reason", "_selected_action": [target.pk], "reason": "left the tab", "apply": "1"},
    )
    assert done.status_code == 302 and done["Location"].endswith(f"?{query}")


def test_no_one_deletes_participants_answers_or_studies_in_bulk(busy, client):
    client.force_login(personas.superuser())
    for url in (CHANGELIST, "/admin/studies/response/", "/admin/studies/study/"):
        page = client.get(url)
        assert page.status_code == 200
        assert "delete_selected" not in page.content.decode(), url


def test_including_again_keeps_the_automatic_exclusions_reason_in_the_audit_trail(
    implicature, researcher, researcher_client
):
    study = small_study("trail", units=1, unit_size=2, attention_checks=2, exclude_at=2, owner=researcher)
    if study.status == study.Status.DRAFT:
        study_set_status(study=study, status=study.Status.LIVE)
    careless = Bot(study, pid(1)).start_items()
    careless.answer_items(
        lambda item: ("no" if item.gold == "yes" else "yes") if item.is_attention_check else item.gold
    )
    participant = careless.participant
    assert participant.exclusion_reason == "failed 2 attention checks (threshold 2)"
    participants_include(participant_ids=[participant.pk], actor=researcher)
    event = StudyEvent.objects.get(study=study, kind=StudyEvent.Kind.INCLUDED)
    assert event.data["lifted"] == {participant.pseudonym: "failed 2 attention checks (threshold 2)"}
    assert "excluded before: A1: failed 2 attention checks (threshold 2)" in event.summary
    page = researcher_client.get(f"{CHANGELIST}{participant.pk}/change/").content.decode()
    assert "Included again A1 (excluded before: A1: failed 2 attention checks (threshold 2))" in page
