"""Exact query counts of the researcher's pages, equal at two study sizes: a page whose count grew with
units or participants would query per row."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from studies.models import Study
from tests.factories import Bot, pid, small_study

pytestmark = pytest.mark.django_db

#: session and user, the user's permissions (2), the study (with its ownership check), units with their
#: items, runs: the results are kept from the first request (results/presenting/cache.py), no answer is read
RESULTS_QUERIES = 7
#: session and user, the user's permissions (2), the studies, then the units, runs, participants,
#: answers and attention checks answered of all of them at once, and the runs still queued or running
LIST_QUERIES = 11


def _study(name: str, units: int, owner) -> Study:
    """`units` units of 3 items, each completed by two participants through the HTTP views."""
    study = small_study(name, units=units, unit_size=3, per_unit=2, attention_checks=1, owner=owner)
    for n in range(2 * units):
        Bot(study, pid(len(name) * 100 + n)).complete()
    return study


def _count(client: Client, url: str) -> int:
    client.get(url)  # the first request of a client fills caches the others share
    with CaptureQueriesContext(connection) as captured:
        page = client.get(url)
    assert page.status_code == 200, url
    return len(captured)


def test_the_results_page_costs_the_same_queries_for_one_and_three_units(implicature, researcher, researcher_client):
    small, large = _study("one unit", 1, researcher), _study("three units", 3, researcher)
    assert (small.units.count(), large.participants.count()) == (1, 6)
    counts = [_count(researcher_client, f"/studies/{study.pk}/results/") for study in (small, large)]
    assert counts == [RESULTS_QUERIES, RESULTS_QUERIES]


def test_the_study_list_costs_the_same_queries_for_one_and_for_two_studies(implicature, researcher, researcher_client):
    _study("one unit", 1, researcher)
    one = _count(researcher_client, "/studies/")
    _study("three units", 3, researcher)
    assert [one, _count(researcher_client, "/studies/")] == [LIST_QUERIES, LIST_QUERIES]


#: session and user, the user's permissions (2), the study (with its ownership check), its units, its
#: participants, their answers, the page figures summed per participant and the answers the speed and
#: straight-lining rules read (2), and its Prolific study, read once for the currency, the recruitment
#: target, Prolific's status and the open flags
MONITOR_QUERIES = 11


def test_the_monitor_costs_the_same_queries_for_two_and_for_six_participants(
    implicature, researcher, researcher_client
):
    small, large = _study("one unit", 1, researcher), _study("three units", 3, researcher)
    assert (small.participants.count(), large.participants.count()) == (2, 6)
    for study in (small, large):
        url = f"/studies/{study.pk}/monitor/"
        assert _count(researcher_client, url) == MONITOR_QUERIES
        researcher_client.defaults["HTTP_HX_REQUEST"] = "true"  # the fragment htmx asks for every 10 s
        assert _count(researcher_client, url) == MONITOR_QUERIES
        del researcher_client.defaults["HTTP_HX_REQUEST"]


def _closed(study: Study) -> Study:
    from studies.setup.studies import study_set_status

    return study_set_status(study=study, status=Study.Status.CLOSED)


#: session and user, the user's permissions (2): the form plans nothing from the items (its power
#: analysis comes after the page)
NEW_STUDY_FORM_QUERIES = 4
#: session and user, the user's permissions (2), the imported items (one read of all of them), the
#: attention checks counted, the benchmark's assets, the closed studies of the benchmark that may be
#: its pilot and the answers of the newest
POWER_QUERIES = 9


def test_the_new_study_form_and_its_power_analysis_cost_the_same_queries_whatever_the_pilot(
    implicature, researcher, researcher_client
):
    form, power = "/studies/new/?benchmark=implicature", "/studies/new/?benchmark=implicature&power=1"
    counts = []
    for name, units in (("one unit", 1), ("three units", 3)):
        pilot = _closed(_study(name, units, researcher))
        counts.append((_count(researcher_client, form), _count(researcher_client, power)))
        # the power analysis read the pilot just closed: 2 people a unit, in one unit, then in three
        source = researcher_client.get(power).context["power"]["source"]
        assert (source["kind"], source["n_people"]) == ("pilot", pilot.participants.count())
    assert counts == [(NEW_STUDY_FORM_QUERIES, POWER_QUERIES)] * 2


#: session and user, the user's permissions (2), the study (with its ownership check), the identities
#: to withhold (2), then what its parts read, each once whatever the study's size (the units' items in
#: one query, not one a unit): its units, participants, items, answers and model runs, its results (the
#: `study_results` command's own reads), its preregistration, events and checklist, and the report's
#: one item shown beside its model prompt (results.loading.item_example)
BUNDLE_QUERIES = 41


def test_the_bundle_costs_the_same_queries_for_one_and_three_units(implicature, researcher, researcher_client):
    small, large = _study("one unit", 1, researcher), _study("three units", 3, researcher)
    assert (small.participants.count(), large.participants.count()) == (2, 6)
    counts = [_count(researcher_client, f"/studies/{study.pk}/bundle/") for study in (small, large)]
    assert counts == [BUNDLE_QUERIES, BUNDLE_QUERIES]
