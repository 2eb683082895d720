"""The results page, its htmx partial, the cross-study page and the downloads."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import NoReverseMatch, reverse

from tests.factories import Bot, pid

pytestmark = pytest.mark.django_db

#: session and user, the user's permissions (Django loads a non-superuser's user and group permissions
#: once per request: 2), then units+items, runs, and on a first view (results computed in the request)
#: the study's count of answers, its participants, their answers, the attention checks answered, model
#: answers, its Prolific study (for the methods section) (and the runs partial's url); the ownership
#: check is part of the study query itself; and, the first time a state of the study is seen, the task
#: that keeps its model-likeness flags current, queued (results.pipeline); and for the
#: exclusion-robustness table the participants flagged for review (`studies.participants.quality.participant_flags`: the
#: completion times, the answers' page figures summed by the database and the answers the speed and
#: straight-lining rules read, the flags kept, the participants asked about)
MAX_QUERIES = 18


def _url(built, suffix: str = "results/") -> str:
    return f"/studies/{built.study_id}/{suffix}"


def test_the_results_page_renders_for_staff_in_a_bounded_number_of_queries(
    staff_client, pilot, django_assert_max_num_queries
):
    with django_assert_max_num_queries(MAX_QUERIES):
        page = staff_client.get(_url(pilot))
    assert page.status_code == 200
    html = page.content.decode()
    assert 'id="study-results"' in html and 'id="results-filters"' in html
    assert "85.0%" in html and "tiny-lm" in html and "template 2, k=0" in html
    assert 'id="chart-templates"' in html and 'id="chart-categories"' in html and "<svg" in html
    try:
        runs_url = reverse("modelruns:study_runs", args=[pilot.study_id])
    except NoReverseMatch:  # the page renders without the model-runs partial
        assert 'id="model-runs"' not in html
    else:
        assert f'hx-get="{runs_url}" hx-trigger="load"' in html
    for secret in pilot.pids:
        assert secret not in html


def test_the_query_count_does_not_grow_with_participants(staff_client, ambi, django_assert_max_num_queries):
    with django_assert_max_num_queries(MAX_QUERIES):
        page = staff_client.get(_url(ambi))
    html = page.content.decode()
    assert page.status_code == 200 and 'id="chart-positions"' in html and "Bayesian oracle" in html


def test_an_htmx_request_gets_the_filtered_partial_only(staff_client, pilot):
    page = staff_client.get(_url(pilot), {"unit": "U2", "setting": "template 3, k=0"}, HTTP_HX_REQUEST="true")
    html = page.content.decode()
    assert page.status_code == 200 and html.lstrip().startswith('<section id="study-results">')
    assert "<html" not in html and "80.0%" in html and "template 2, k=0" not in html


def test_invalid_filters_are_refused_with_a_message(staff_client, pilot):
    page = staff_client.get(_url(pilot), {"unit": "U9", "model": "<script>"})
    assert page.status_code == 400
    html = page.content.decode()
    assert "not valid" in html and "<script>" not in html


def test_anonymous_visitors_are_sent_to_log_in_and_non_staff_are_refused(member_client, pilot):
    for url in ("/studies/", _url(pilot), _url(pilot, "export/csv/")):
        response = Client().get(url)
        assert response.status_code == 302 and response["Location"].startswith("/accounts/login/?next=")
        assert member_client.get(url).status_code == 403


def test_a_participant_session_reads_no_results(pilot, client):
    from tests.factories import small_study

    study = small_study("other")
    Bot(study, pid(0xF00), client=client).enter()
    assert client.get(_url(pilot)).status_code == 302


def test_the_cross_study_page_lists_every_study_with_headline_numbers(
    staff_client, pilot, ambi, django_assert_max_num_queries
):
    with django_assert_max_num_queries(MAX_QUERIES):
        page = staff_client.get("/studies/")
    html = page.content.decode()
    assert page.status_code == 200
    assert f'href="/studies/{pilot.study_id}/results/"' in html and f'href="/studies/{ambi.study_id}/results/"' in html
    assert "85.0%" in html and "tiny-lm (template 3, k=0)" in html and "100.0%" in html


@pytest.mark.parametrize(
    ("fmt", "content_type", "suffix"),
    [
        ("csv", "text/csv", "long.csv"),
        ("wide-csv", "text/csv", "wide.csv"),
        ("jsonl", "application/x-ndjson", "long.jsonl"),
        ("parquet", "application/vnd.apache.parquet", "long.parquet"),
        ("latex", "application/x-tex", "table.tex"),
        ("markdown", "text/markdown", "table.md"),
    ],
)
def test_downloads_from_the_results_page(staff_client, pilot, fmt, content_type, suffix):
    response = staff_client.get(_url(pilot, f"export/{fmt}/"))
    assert response.status_code == 200 and response["Content-Type"].startswith(content_type)
    assert response["Content-Disposition"] == f'attachment; filename="pilot-results-{suffix}"'
    for secret in pilot.pids:
        assert secret.encode() not in response.content
    assert f'href="{_url(pilot, f"export/{fmt}/")}"' in staff_client.get(_url(pilot)).content.decode()


def test_an_unknown_format_or_study_is_not_found(staff_client, pilot):
    assert staff_client.get(_url(pilot, "export/xlsx/")).status_code == 404
    assert staff_client.get("/studies/999999/results/").status_code == 404


def test_the_agreement_cards_on_the_page_show_their_intervals_or_why_there_are_none(staff_client, pilot):
    from django.utils.html import escape

    page = staff_client.get(_url(pilot))
    html = page.content.decode()
    human = page.context["results"].human
    cards = {card.label: card for card in page.context["cards"]}
    kappa = cards["Mean pairwise Cohen's κ (per unit, averaged)"]
    # the pilot's units have too few items for the mean pairwise κ's interval: the page says why
    assert human.cohen_kappa_mean_pairwise_ci95 is None and kappa.note == human.cohen_kappa_ci_note
    for card in (kappa, cards["Fleiss' κ"]):
        assert f"<dt>{escape(card.label)}</dt><dd>{escape(card.value)} <small>{escape(card.note)}</small>" in html
