"""A model run on a researcher's own items with a tiny random Llama loaded by the real loader:
option kinds by comparing continuations (acc and acc_norm), typed kinds by generation cut at the
item's stop strings, then scored by the item's metric."""

from __future__ import annotations

import pytest

from annotation.selectors import item_data
from annotation.services import benchmark_import
from modelruns import services, shards
from modelruns.models import ModelResponse, ModelRun
from modelruns.selectors import study_items
from parity.benchmarks.custom import score_answer
from parity.benchmarks.custom.model import cut_at_stops
from parity.engine.requests import ChoiceRequest, GenerationRequest
from results.computing.assemble import study_results_tree
from results.loading.selectors import load_study_data
from studies.setup.studies import study_create
from tests.paths import REPO

pytestmark = pytest.mark.django_db

EXAMPLE = REPO / "parity" / "benchmarks" / "custom" / "example.csv"


@pytest.fixture
def study():
    benchmark_import(name="custom", source=EXAMPLE, options={"name": "example"})
    return study_create(name="own items", benchmark="custom", design={"item_set": "example", "unit_size": 0})


def test_the_requests_follow_each_items_kind(study):
    items = [item_data(item) for item in study_items(study)]
    requests = {
        request.key.split("/")[1]: request
        for request in study.definition.model_requests(items, {}, study.definition.model_setting())
    }
    capital = requests["capital"]
    assert isinstance(capital, ChoiceRequest)
    assert capital.context.endswith("Options: Sydney, Canberra, Melbourne\nAnswer:")
    assert capital.continuations == (" Sydney", " Canberra", " Melbourne")
    assert isinstance(requests["clarity"], ChoiceRequest) and len(requests["clarity"].continuations) == 5
    legs = requests["legs"]
    assert isinstance(legs, GenerationRequest) and legs.max_new_tokens == 8 and legs.stop_at_newline
    assert requests["summary"].max_new_tokens == 48
    assert "check" not in requests  # attention checks are for people


def test_a_run_answers_every_kind_keeps_each_options_loglik_and_length_and_scores_by_metric(study, tiny_spec):
    run = services.modelrun_start(study=study, spec=tiny_spec, enqueue=False).run
    shards.modelrun_work(run=run, worker="test")
    run.refresh_from_db()
    assert run.status == ModelRun.Status.DONE, run.error
    answers = {r.item.meta["id"]: r for r in ModelResponse.objects.filter(run=run).select_related("item")}
    assert sorted(answers) == ["author", "boiling", "capital", "clarity", "legs", "pi", "summary", "symbol"]
    capital = answers["capital"]
    logliks, lengths = capital.scores["loglik"], capital.scores["chars"]
    assert lengths == {"Sydney": 6, "Canberra": 8, "Melbourne": 9}
    assert capital.answer == max(logliks, key=logliks.get)
    assert capital.scores["answer_norm"] == max(logliks, key=lambda option: logliks[option] / lengths[option])
    assert capital.correct == (capital.answer == "Canberra")
    assert capital.scores["correct_norm"] == (capital.scores["answer_norm"] == "Canberra")
    clarity = answers["clarity"]
    assert clarity.valid and clarity.answer in "12345" and not clarity.correct and "correct_norm" not in clarity.scores
    for key in ("symbol", "author", "legs", "pi"):
        answer = answers[key]
        item = item_data(answer.item)
        assert answer.answer == (
            cut_at_stops(answer.raw_answer, ["\n"]).strip() if key in ("symbol", "author") else answer.answer
        )
        if answer.valid:  # the same rule as a person's answer
            assert answer.correct == score_answer(answer.answer, item).correct
        assert 0.0 <= answer.scores["score"] <= 1.0
    assert not answers["summary"].correct
    results = study_results_tree(load_study_data(study), n_boot=20).to_json()
    by_kind = {row["kind"]: row for row in results["breakdowns"]["by_kind"]}
    (model,) = by_kind["choice"]["models"]
    assert model["accuracy"] == float(capital.correct) and model["accuracy_norm"] == float(
        capital.scores["correct_norm"]
    )
    (rating,) = by_kind["rating"]["models"]
    assert rating["accuracy"] is None and rating["n_valid"] == 1
    (entry,) = results["models"]
    assert entry["n_items"] == 8  # the model's accuracy counts only the six items with a right answer
    scored = [r for key, r in answers.items() if key not in ("clarity", "summary")]
    assert entry["accuracy"] == pytest.approx(sum(r.correct for r in scored) / 6)


def test_a_runs_accuracy_counts_only_items_with_a_right_answer_wherever_it_is_shown(
    study, tiny_spec, researcher, client
):
    """The runs table, the API and `run_model` give the results' accuracy: ratings and free texts
    (no right answer) are answered but not scored."""
    from django.urls import reverse

    from api.selectors import model_runs_of
    from modelruns.selectors import run_accuracy, runs_for_study

    run = services.modelrun_start(study=study, spec=tiny_spec, enqueue=False).run
    shards.modelrun_work(run=run, worker="test")
    correct = ModelResponse.objects.filter(run=run, correct=True).count()
    (entry,) = study_results_tree(load_study_data(study), n_boot=20).to_json()["models"]
    assert entry["accuracy"] == pytest.approx(correct / 6) == pytest.approx(run_accuracy(run))
    (row,) = runs_for_study(study)
    assert (row.n_answered, row.n_scored) == (8, 6)
    assert model_runs_of(study)[0]["accuracy"] == pytest.approx(correct / 6)
    study.owner = researcher
    study.save(update_fields=["owner"])
    client.force_login(researcher)
    html = client.get(reverse("modelruns:study_runs", args=[study.pk])).content.decode()
    assert f"{round(100 * correct / 6)}% " in html and f"({correct}/6" in html
