"""The published implicature study (Ruis et al.'s 20 annotators) with two model runs: `study_results
--json` places them among the people (joint IRT), tests them item by item and against the human
band, and the results page shows the placement chart and the table."""

from __future__ import annotations

import json
from io import StringIO

import numpy as np
import pytest
from django.core.management import call_command
from django.urls import reverse

from studies.models import Study
from tests.results.conftest import BASELINE_NAME, FLIP, Built, model_run

pytestmark = pytest.mark.django_db


@pytest.fixture(scope="module")
def runs(baseline: Built) -> dict[str, int]:
    """A model right on every item (the gold answers) and one right on about half (a seeded coin)."""
    from annotation.models import Item

    study = Study.objects.get(pk=baseline.study_id)
    golds = dict(Item.objects.filter(unititem__unit__study=study).values_list("key", "gold"))
    coin = np.random.default_rng(0).random(len(golds)) < 0.5
    base = {"variant": "ranking", "k": 0, "shots_seed": 0}
    gold_run = model_run(study, "tiny-lm", {**base, "template": 1}, golds)
    coin_run = model_run(
        study,
        "tiny-lm",
        {**base, "template": 2},
        {key: FLIP[gold] if flip else gold for (key, gold), flip in zip(sorted(golds.items()), coin)},
    )
    return {"gold": gold_run.pk, "coin": coin_run.pk}


def _no_nan(constant: str) -> None:
    raise AssertionError(f"{constant} in the JSON")


@pytest.fixture(scope="module")
def numbers(runs, django_db_blocker) -> dict:
    with django_db_blocker.unblock():
        out = StringIO()
        call_command("study_results", BASELINE_NAME, "--json", stdout=out)
    return json.loads(out.getvalue(), parse_constant=_no_nan)


def test_the_json_places_both_runs_among_the_20_annotators(numbers, runs) -> None:
    irt = numbers["irt"]
    assert numbers["irt_reason"] is None
    # five answers per item: the Rasch model, not the 2PL
    assert irt["model"] == "1pl" and irt["people"] == 20 and len(irt["people_abilities"]) == 20
    assert irt["items_used"] + irt["items_dropped_all_right"] + irt["items_dropped_all_wrong"] == 600
    # all right: the items no annotator and neither run got wrong; all wrong: none (the gold run)
    from modelruns.models import ModelResponse
    from studies.models import Response

    missed = set(
        Response.objects.filter(participant__study__name=BASELINE_NAME, correct=False).values_list(
            "item__key", flat=True
        )
    )
    missed |= set(ModelResponse.objects.filter(run_id=runs["coin"], correct=False).values_list("item__key", flat=True))
    assert irt["items_dropped_all_right"] == 600 - len(missed) and irt["items_dropped_all_wrong"] == 0
    assert len(irt["items"]) == irt["items_used"] and all(item["text"] for item in irt["items"])
    assert all(item["discrimination"] is None for item in irt["items"])
    assert 0.0 < irt["person_reliability"] < 1.0 and 0.0 < irt["item_reliability"] < 1.0
    placed = {model["run"]: model for model in irt["models"]}
    gold, coin = placed[runs["gold"]], placed[runs["coin"]]
    assert gold["percentile"] == 100.0 and coin["percentile"] == 0.0
    assert gold["label"] == "tiny-lm (template 1, k=0)"
    for model in (gold, coin):
        assert model["ci"][0] < model["ability"] < model["ci"][1]
    assert coin["ability"] < min(irt["people_abilities"]) < max(irt["people_abilities"]) < gold["ability"]
    # the most divergent: items no annotator got right and both runs did; listed with their text,
    # none significant once adjusted for the 378 items tested
    first = irt["divergent_items"][0]
    assert (first["human_rate"], first["model_rate"]) == (0.0, 1.0) and first["statistic"] > 0 and first["text"]
    assert [item["p"] for item in irt["divergent_items"]] == sorted(item["p"] for item in irt["divergent_items"])
    assert irt["n_items_tested"] == irt["items_used"] and irt["n_divergent"] == 0


def test_the_paired_tests_find_the_coin_below_people_and_the_gold_run_above(numbers, runs) -> None:
    paired = {row["run"]: row for row in numbers["paired"]}
    gold, coin = paired[runs["gold"]], paired[runs["coin"]]
    human = numbers["human"]["accuracy"]["mean"]
    assert gold["n_items"] == coin["n_items"] == 600
    # every item has five annotators: the mean over items is the mean over annotators (86.2%)
    assert gold["gap"] == pytest.approx(1.0 - human, abs=1e-9)
    assert gold["ci"][0] > 0.0 and coin["ci"][1] < 0.0
    models = {model["run"]: model for model in numbers["models"]}
    assert coin["gap"] == pytest.approx(models[runs["coin"]]["gap_to_humans"], abs=1e-12)
    for row in (gold, coin):
        assert row["mcnemar"]["statistic"] > 20 and row["mcnemar"]["p"] < 1e-6
        # the gap's test, over people and items like these: 20 people cannot place a gap this size near 0
        assert row["p"] < 0.001 and row["target"] == "people like these, on items like these"
    assert gold["mcnemar"]["c"] == 0  # the human majority is never right where the gold run is wrong


def test_the_human_band_puts_the_coin_below_it(numbers, runs) -> None:
    band = {row["run"]: row for row in numbers["human_band"]}
    coin, gold = band[runs["coin"]], band[runs["gold"]]
    # 4 subsets of 5 annotators: 10 pairs each; the published mean pairwise kappa is 0.72
    assert coin["human_kappa"]["n_pairs"] == 40 and coin["human_kappa"]["n_people"] == 20
    assert 0.6 < coin["human_kappa"]["median"] < 0.8
    assert coin["verdict"] == "below" and abs(coin["model_kappa"]) < 0.15
    # the gold answers agree with the annotators about as well as they agree with each other
    assert gold["verdict"] == "within" and gold["model_kappa"] == pytest.approx(0.72, abs=0.01)


def test_the_results_page_shows_the_placement_chart_and_the_table(staff_client, runs) -> None:
    study = Study.objects.get(name=BASELINE_NAME)
    page = staff_client.get(reverse("results:study", args=[study.pk]))
    body = page.content.decode()
    assert page.status_code == 200
    assert 'id="chart-placement"' in body and "Where the models stand among the participants" in body
    assert 'id="among-people-table"' in body and "): below" in body
    assert 'id="divergent-items"' in body


def test_the_placement_is_computed_once_and_again_when_the_data_change(runs) -> None:
    from results.loading.filters import ResultFilters
    from results.pipeline import results_lookup
    from studies.models import Participant
    from studies.participants.decisions import participants_exclude, participants_include

    study = Study.objects.get(name=BASELINE_NAME)
    first = results_lookup(study, ResultFilters()).computed
    assert first is not None and "placement" in first.charts and first.results.irt.people == 20
    again = results_lookup(study, ResultFilters()).computed
    assert again is not None and again.computed_at == first.computed_at  # kept, not computed again
    someone = Participant.objects.filter(study=study).order_by("pk").first()
    participants_exclude(participant_ids=[someone.pk], reason="checked by hand")
    changed = results_lookup(study, ResultFilters()).computed
    assert changed is not None and changed.computed_at > first.computed_at
    assert changed.results.irt is not None and changed.results.irt.people == 19
    assert changed.results.human_band[0].placed.human_kappa.n_people == 19
    participants_include(participant_ids=[someone.pk])
