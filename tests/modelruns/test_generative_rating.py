"""MiQA's generative task end to end (Comsa et al., Section 5.2): a model run writes answers to
"M_p". Could that imply that "L_c"?, one action turns them into a rating study, raters grade a share
of the answers each, and the results give the model's generative score and ICC(2,k) per block."""

from __future__ import annotations

from collections import Counter

import pytest
from django.core.management import CommandError, call_command
from django.urls import reverse

from annotation.models import Item
from annotation.services import benchmark_import
from modelruns import services, shards
from modelruns.models import ModelResponse, ModelRun
from parity.benchmarks.miqa import generative_prompt
from results.computing.assemble import study_results_tree
from results.loading.selectors import load_study_data
from studies.models import Study
from studies.setup.studies import study_create
from tests.conftest import datasets_dir
from tests.factories import Bot, pid
from tests.personas import personas_for, signed_in

pytestmark = pytest.mark.django_db


@pytest.fixture
def generative_run(tiny_spec, researcher) -> ModelRun:
    benchmark_import(name="miqa", source=datasets_dir() / "miqa")
    study = study_create(
        name="miqa gen", benchmark="miqa", design={"units": 1, "unit_size": 6}, owner=researcher
    )  # rows 1-3
    run = services.modelrun_start(study=study, spec=tiny_spec, setting={"wording": "generative"}, enqueue=False).run
    shards.modelrun_work(run=run, worker="test")
    run.refresh_from_db()
    assert run.status == ModelRun.Status.DONE, run.error
    return run


def test_a_generative_run_writes_one_ungraded_answer_per_implies_question(generative_run):
    responses = sorted(
        ModelResponse.objects.filter(run=generative_run).select_related("item"),
        key=lambda response: response.item.meta["row"],
    )
    assert [(r.item.meta["row"], r.item.meta["direction"]) for r in responses] == [
        (1, "implies"),
        (2, "implies"),
        (3, "implies"),
    ]
    assert all(r.variant == "generative" and r.scores == {"ungraded": True} for r in responses)
    assert generative_run.progress_done == generative_run.progress_total == 6
    (model,) = study_results_tree(load_study_data(generative_run.study), n_boot=50).to_json()["models"]
    assert model["accuracy"] is None, "written answers are not scored before people grade them"


def test_rate_these_answers_makes_a_rating_study_whose_grades_give_the_score_and_icc(generative_run, researcher_client):
    runs_page = researcher_client.get(reverse("modelruns:study_runs", args=[generative_run.study.pk])).content.decode()
    assert f'id="rate-run-{generative_run.pk}"' in runs_page and "Rate these answers" in runs_page
    assert "3 written answers, graded by people" in runs_page and "(0/3" not in runs_page
    url = reverse("modelruns:rate", args=[generative_run.study.pk, generative_run.pk])
    assert researcher_client.get(url).status_code == 405
    response = researcher_client.post(url)
    rating = Study.objects.get(benchmark="miqa_rating")
    assert response.status_code == 302 and response["Location"] == reverse("results:study", args=[rating.pk])
    assert researcher_client.post(url)["Location"] == response["Location"], "a second press gives the same study"
    items = Item.objects.filter(benchmark="miqa_rating").order_by("key")
    implies = Item.objects.get(benchmark="miqa", meta__row=1, meta__direction="implies")
    assert items.count() == 3 and items[0].prompt["question"] == generative_prompt(implies.prompt)
    assert items[0].prompt["answer"] == ModelResponse.objects.get(run=generative_run, item=implies).answer
    assert [unit.unit_items.count() for unit in rating.units.all()] == [3]


def test_a_view_only_collaborator_sees_the_answers_but_cannot_rate_them(generative_run):
    """Rating makes a study: a collaborator holding the view permissions only gets neither the
    button nor the study, and a collaborator who may add studies gets both."""
    people = personas_for(generative_run.study, prefix="rate-")
    viewer = signed_in(people.viewer)
    runs_url = reverse("modelruns:study_runs", args=[generative_run.study.pk])
    viewer_page = viewer.get(runs_url).content.decode()
    assert "3 written answers, graded by people" in viewer_page and "Rate these answers" not in viewer_page
    url = reverse("modelruns:rate", args=[generative_run.study.pk, generative_run.pk])
    assert viewer.post(url).status_code == 403
    assert not Study.objects.filter(benchmark="miqa_rating").exists()
    assert signed_in(people.outsider).post(url).status_code == 404
    assert not Study.objects.filter(benchmark="miqa_rating").exists()
    assert signed_in(people.collaborator).post(url).status_code == 302
    rating = Study.objects.get(benchmark="miqa_rating")
    assert rating.owner == people.owner and set(rating.collaborators.all()) == {people.collaborator, people.viewer}


def test_the_command_blocks_answers_and_the_icc_keeps_the_block_with_one_rater_visible(
    generative_run, researcher_client, capsys
):
    """Blocks of 2 answers, 2 raters each: [q1, q2] and [q3]. Grades (first rater, second rater):
    q1 correct/correct, q2 wrong/ambiguous, q3 correct/wrong. Block 1 is [[1, 1], [0, 0.5]]:
    MSR = 0.5625, MSC = MSE = 0.0625, so ICC(2,2) = (0.5625 - 0.0625) / 0.5625 = 8/9; block 2 has one
    answer, so no ICC, and it is counted. Generative score: (1 + 0.25 + 0.5) / 3."""
    call_command("rate_generative_answers", str(generative_run.pk), "--raters", "2", "--block-size", "2")
    out = capsys.readouterr().out
    rating = Study.objects.get(benchmark="miqa_rating")
    assert out.strip().splitlines()[-1] == rating.participant_url()
    assert [unit.unit_items.count() for unit in rating.units.order_by("position")] == [2, 1]
    grades = {
        "miqa-001-generative": ("correct", "correct"),
        "miqa-002-generative": ("wrong", "ambiguous"),
        "miqa-003-generative": ("correct", "wrong"),
    }
    seen: Counter[str] = Counter()

    def grade(item):
        question = item.meta["question_id"]
        seen[question] += 1
        return grades[question][seen[question] - 1]

    for n in range(4):
        Bot(rating, pid(700 + n)).complete(choose=grade)
    results = study_results_tree(load_study_data(rating), n_boot=50).to_json()
    graded = results["graded"]
    assert graded["icc2k"] == pytest.approx(8 / 9) == results["human"]["icc2k"]
    assert (graded["n_items"], graded["n_blocks"], graded["n_items_without_icc"]) == (3, 2, 1)
    (score,) = graded["generative_scores"]
    assert score["model"] == f"{generative_run.spec.name} (run {generative_run.pk})"
    assert score["n_answers"] == 3 and score["score"] == pytest.approx(1.75 / 3)
    page = researcher_client.get(reverse("results:study", args=[rating.pk])).content.decode()
    assert "Generative score" in page and "58.3%" in page and "0.89" in page and "1 of 3 answers without ICC" in page
    assert "two-way random effects, absolute agreement" in page


def test_only_a_finished_generative_miqa_run_can_be_rated(tiny_spec, generative_run):
    choice = services.modelrun_start(study=generative_run.study, spec=tiny_spec, setting={"k": 0}, enqueue=False).run
    with pytest.raises(CommandError, match="not a generative MiQA run"):
        call_command("rate_generative_answers", str(choice.pk))
    with pytest.raises(CommandError, match="no model run 999"):
        call_command("rate_generative_answers", "999")
    with pytest.raises(ValueError, match="generative runs are 0-shot"):
        generative_run.study.definition.model_setting({"wording": "generative", "k": "1"})
    assert not Study.objects.filter(benchmark="miqa_rating").exists()
