"""Model runs end to end with a tiny random model: the command, the services, shards and crashes."""

from __future__ import annotations

import shutil
import time
from datetime import timedelta
from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from django.urls import reverse
from django.utils import timezone

from modelruns import services, shard_answers, shards
from modelruns.models import ModelResponse, ModelRun, ModelShard
from modelruns.scorers import scorer_of
from parity.benchmarks.base import ModelAnswer

pytestmark = pytest.mark.django_db


def _start(study, spec, **kwargs):
    kwargs.setdefault("shard_size", 4)
    return services.modelrun_start(study=study, spec=spec, enqueue=False, **kwargs).run


def test_run_model_scores_every_item_once_and_reports_accuracy(small_implicature_study, tiny_model_dir):
    out = StringIO()
    call_command(
        "run_model",
        "--study",
        "model pilot",
        "--model",
        str(tiny_model_dir),
        "--device",
        "cpu",
        "--setting",
        "template=2",
        "k=1",
        "--shard-size",
        "4",
        "--wait",
        stdout=out,
    )
    run = ModelRun.objects.get()
    assert run.status == ModelRun.Status.DONE and run.progress_done == run.progress_total == 10
    assert list(run.shards.values_list("size", flat=True)) == [4, 4, 2]
    responses = ModelResponse.objects.filter(run=run)
    assert responses.count() == 10 and {r.item_id for r in responses} == {
        item.pk for unit in small_implicature_study.units.all() for item in unit.items.all()
    }
    assert all(
        r.answer in ("yes", "no") and r.valid and r.correct == (r.answer == r.item.gold)
        for r in responses.select_related("item")
    )
    assert all(set(r.scores) >= {"yes", "no"} for r in responses)
    correct = responses.filter(correct=True).count()
    text = out.getvalue()
    assert f"accuracy {correct / 10:.1%}" in text and "10/10 items" in text
    assert run.setting == {"variant": "ranking", "template": 2, "k": 1, "shots_seed": 0}
    assert run.engine_version and run.model_identity["model_id"] == str(tiny_model_dir)
    assert run.started_at and run.finished_at and run.finished_at >= run.started_at


def test_starting_the_same_run_again_returns_it_and_a_shard_rerun_writes_nothing(small_implicature_study, tiny_spec):
    run = _start(small_implicature_study, tiny_spec)
    assert shards.modelrun_work(run=run, worker="w1") == 3
    again = services.modelrun_start(study=small_implicature_study, spec=tiny_spec, enqueue=False)
    assert not again.created and again.run.pk == run.pk
    assert shards.modelrun_work(run=run, worker="w1") == 0
    run.refresh_from_db()
    shard = run.shards.get(index=0)
    answers = shard_answers.shard_answers(run, shard, scorer_of(tiny_spec))
    before = list(ModelResponse.objects.filter(run=run).values_list("pk", "answer", "scores"))
    assert shards.shard_complete(shard=shard, worker="w2", answers=answers) == 0
    assert list(ModelResponse.objects.filter(run=run).values_list("pk", "answer", "scores")) == before
    run.refresh_from_db()
    assert run.status == ModelRun.Status.DONE and run.progress_done == 10


def test_a_shard_of_a_silent_worker_is_taken_over_and_nothing_is_duplicated(small_implicature_study, tiny_spec):
    run = _start(small_implicature_study, tiny_spec, lease_seconds=30)
    dead = shards.shard_claim(run=run, worker="dead-worker")
    assert dead is not None and dead.index == 0
    assert shards.shard_claim(run=run, worker="other", prefer=dead.pk).pk != dead.pk  # a live lease holds
    ModelShard.objects.filter(run=run).exclude(pk=dead.pk).update(status=ModelShard.Status.PENDING, worker="")
    ModelShard.objects.filter(pk=dead.pk).update(heartbeat_at=timezone.now() - timedelta(seconds=31))
    assert shards.modelrun_work(run=run, worker="survivor") == 3
    dead.refresh_from_db()
    assert dead.status == ModelShard.Status.DONE and dead.worker == "survivor" and dead.attempts == 2
    assert ModelResponse.objects.filter(run=run).count() == 10
    run.refresh_from_db()
    assert run.status == ModelRun.Status.DONE


def test_a_worker_waits_for_a_live_shard_and_takes_it_over_when_its_lease_runs_out(small_implicature_study, tiny_spec):
    run = _start(small_implicature_study, tiny_spec, lease_seconds=30)
    held = shards.shard_claim(run=run, worker="slow-worker")
    waits: list[float] = []

    def sleep(seconds: float) -> None:  # the holder dies while we wait
        waits.append(seconds)
        ModelShard.objects.filter(pk=held.pk).update(heartbeat_at=timezone.now() - timedelta(seconds=60))

    assert shards.modelrun_work(run=run, worker="survivor", sleep=sleep) == 3
    assert len(waits) == 1 and 0 < waits[0] <= 2
    assert ModelResponse.objects.filter(run=run).count() == 10


def test_a_shard_that_keeps_failing_fails_the_run_naming_the_shard_the_worker_and_the_error(
    small_implicature_study, tiny_spec, monkeypatch, settings, researcher_client
):
    run = _start(small_implicature_study, tiny_spec)
    real = shard_answers.shard_answers

    def broken(run, shard, *args, **kwargs):
        if shard.index == 1:
            raise RuntimeError("the benchmark could not build its prompt")
        return real(run, shard, *args, **kwargs)

    monkeypatch.setattr(shard_answers, "shard_answers", broken)
    shards.modelrun_work(run=run, worker="w1")
    run.refresh_from_db()
    assert run.status == ModelRun.Status.FAILED
    assert run.error.startswith(f"shard 1 failed {settings.MODEL_SHARD_TRIES} times, the last time on worker w1;")
    assert "RuntimeError: the benchmark could not build its prompt" in run.error
    # the study's runs page says it
    page = researcher_client.get(reverse("modelruns:study_runs", args=[small_implicature_study.pk])).content.decode()
    assert "shard 1 failed 3 times, the last time on worker w1; its error:" in page
    shard = run.shards.get(status=ModelShard.Status.FAILED)
    assert shard.index == 1 and shard.errors == settings.MODEL_SHARD_TRIES == 3
    # the answers of the other shards, which finished, are kept
    finished = run.shards.exclude(index=1)
    assert {shard.status for shard in finished} == {ModelShard.Status.DONE}
    assert set(ModelResponse.objects.filter(run=run).values_list("item_id", flat=True)) == {
        item for shard in finished for item in shard.item_ids
    }
    retried = services.modelrun_start(study=small_implicature_study, spec=tiny_spec, enqueue=False)
    assert retried.created  # a failed run does not block a fresh one


def test_a_worker_takes_a_shard_that_failed_on_it_after_the_others(small_implicature_study, tiny_spec):
    run = _start(small_implicature_study, tiny_spec)
    first = shards.shard_claim(run=run, worker="w1")
    shards.shard_fail(shard=first, worker="w1", error="CUDA out of memory")
    # past its back-off (none here) w1 takes the next shard first, while another worker takes this one
    assert shards.shard_claim(run=run, worker="w1").index == 1
    assert shards.shard_claim(run=run, worker="w2").index == 0
    assert shards.shard_claim(run=run, worker="w1").index == 2


def _answers(run) -> dict:
    return {
        (response.item_id, response.variant): (response.raw_answer, response.answer, response.correct, response.scores)
        for response in ModelResponse.objects.filter(run=run)
    }


def test_a_shard_that_fails_twice_completes_on_its_third_try_with_the_answers_of_a_clean_run(
    small_implicature_study, tiny_spec, monkeypatch, settings
):
    settings.MODEL_SHARD_BACKOFF_SECONDS = 0.2
    clean = _start(small_implicature_study, tiny_spec)
    assert shards.modelrun_work(run=clean, worker="w1") == 3
    expected = _answers(clean)
    ModelRun.objects.filter(pk=clean.pk).delete()

    run = _start(small_implicature_study, tiny_spec)
    real = shard_answers.shard_answers
    tries: list[float] = []

    def twice_broken(run, shard, *args, **kwargs):
        if shard.index == 0:
            tries.append(time.monotonic())
            if len(tries) <= 2:
                raise OSError("the disk was full")
        return real(run, shard, *args, **kwargs)

    monkeypatch.setattr(shard_answers, "shard_answers", twice_broken)
    waits: list[float] = []

    def sleep(seconds: float) -> None:
        waits.append(seconds)
        time.sleep(seconds)

    assert shards.modelrun_work(run=run, worker="w1", sleep=sleep) == 3
    run.refresh_from_db()
    shard = run.shards.get(index=0)
    assert run.status == ModelRun.Status.DONE and run.error == ""
    assert shard.status == ModelShard.Status.DONE and shard.errors == 2 and shard.attempts == 3
    assert "OSError: the disk was full" in shard.error or shard.error == ""
    # each try came after its back-off: 0.2 s, then 0.4 s
    assert len(tries) == 3 and tries[1] - tries[0] >= 0.2 and tries[2] - tries[1] >= 0.4 and waits
    assert _answers(run) == expected and len(expected) == 10


def test_a_model_that_fails_to_load_is_tried_again_after_a_back_off_and_the_run_finishes(
    small_implicature_study, tiny_model_dir, tmp_path, settings
):
    """The model is missing where the worker looks (a volume not yet filled, say) for two tries, then
    there: the run does not fail, its first shard records the errors and the run finishes."""
    settings.MODEL_SHARD_BACKOFF_SECONDS = 0.2
    later = tmp_path / "arrives-later"
    spec = services.modelspec_get_or_create(model=str(later), device="cpu")
    run = _start(small_implicature_study, spec)

    def sleep(seconds: float) -> None:
        if run.shards.get(index=0).errors == 2 and not later.exists():
            shutil.copytree(tiny_model_dir, later)
        time.sleep(seconds)

    assert shards.modelrun_work(run=run, worker="w1", sleep=sleep) == 3
    run.refresh_from_db()
    first = run.shards.get(index=0)
    assert run.status == ModelRun.Status.DONE and first.errors == 2 and first.status == ModelShard.Status.DONE
    assert ModelResponse.objects.filter(run=run).count() == 10


def test_a_model_that_cannot_be_found_fails_the_run_with_what_was_tried(small_implicature_study, tmp_path):
    out, err = StringIO(), StringIO()
    with pytest.raises(CommandError, match="1 run"):
        call_command(
            "run_model",
            "--study",
            "model pilot",
            "--model",
            str(tmp_path / "nowhere"),
            "--wait",
            stdout=out,
            stderr=err,
        )
    run = ModelRun.objects.get()
    assert run.status == ModelRun.Status.FAILED and "not found" in run.error and "nowhere" in run.error
    assert run.error.startswith("shard 0 failed 3 times, the last time on worker ")


def test_bad_settings_and_wrong_model_kinds_are_refused_before_anything_is_made(small_implicature_study, settings):
    settings.PARITY_MODEL_SOURCES = [*settings.PARITY_MODEL_SOURCES, "some/"]
    with pytest.raises(CommandError, match="template must be one of"):
        call_command("run_model", "--study", "model pilot", "--model", "smollm2", "--setting", "template=42")
    with pytest.raises(CommandError, match="scored with causal or seq2seq models, not nli"):
        call_command("run_model", "--study", "model pilot", "--model", "some/nli", "--kind", "nli")
    with pytest.raises(CommandError, match="no study named"):
        call_command("run_model", "--study", "nope", "--model", "smollm2")
    assert not ModelRun.objects.exists()


@pytest.mark.django_db(transaction=True)  # the database worker closes its connection between tasks
def test_without_wait_the_shards_are_queued_for_the_database_worker(small_implicature_study, tiny_model_dir):
    from django_tasks_db.models import DBTaskResult

    out = StringIO()
    call_command(
        "run_model",
        "--study",
        "model pilot",
        "--model",
        str(tiny_model_dir),
        "--device",
        "cpu",
        "--shard-size",
        "4",
        stdout=out,
    )
    assert "Queued for the task workers" in out.getvalue()
    queued = DBTaskResult.objects.filter(queue_name="models")
    run = ModelRun.objects.get()
    assert queued.count() == 3 and sorted(task.args_kwargs["args"][0] for task in queued) == sorted(
        run.shards.values_list("pk", flat=True)
    )
    assert run.status == ModelRun.Status.QUEUED
    call_command(
        "db_worker", "--queue-name", "models", "--batch", "--no-startup-delay", stdout=StringIO(), stderr=StringIO()
    )
    run.refresh_from_db()
    assert run.status == ModelRun.Status.DONE and ModelResponse.objects.filter(run=run).count() == 10


def test_a_sweep_starts_one_run_per_setting_and_a_second_sweep_none(small_implicature_study, tiny_spec):
    first = services.modelrun_start_many(study=small_implicature_study, spec=tiny_spec, sweep=True, enqueue=False)
    assert len(first) == 60 and all(item.created for item in first)
    second = services.modelrun_start_many(study=small_implicature_study, spec=tiny_spec, sweep=True, enqueue=False)
    assert not any(item.created for item in second) and ModelRun.objects.count() == 60


def test_cancel_stops_a_run_between_shards(small_implicature_study, tiny_spec):
    run = _start(small_implicature_study, tiny_spec)
    services.modelrun_cancel(run=run)
    assert shards.modelrun_work(run=run, worker="w1") == 0
    run.refresh_from_db()
    assert run.status == ModelRun.Status.CANCELLED and not ModelResponse.objects.filter(run=run).exists()


def test_a_failed_run_resumes_where_it_stopped(small_implicature_study, tiny_spec, monkeypatch):
    run = _start(small_implicature_study, tiny_spec)
    original = shard_answers.shard_answers

    def fails_on_the_second_shard(run_, shard, *args, **kwargs):
        if shard.index == 1:
            raise RuntimeError("out of memory")
        return original(run_, shard, *args, **kwargs)

    monkeypatch.setattr(shard_answers, "shard_answers", fails_on_the_second_shard)
    shards.modelrun_work(run=run, worker="w1")
    run.refresh_from_db()
    # the worker scored the third shard before trying the failing one again: 4 + 2 answers kept
    assert run.status == ModelRun.Status.FAILED and ModelResponse.objects.filter(run=run).count() == 6
    monkeypatch.setattr(shard_answers, "shard_answers", original)
    services.modelrun_resume(run=run)
    shards.modelrun_work(run=run, worker="w2")
    run.refresh_from_db()
    assert run.status == ModelRun.Status.DONE and not run.error and ModelResponse.objects.filter(run=run).count() == 10
    assert run.shards.get(index=1).worker == "w2"


def test_generated_nul_characters_are_stored_as_replacement_characters(small_implicature_study, tiny_spec):
    """PostgreSQL's text and jsonb cannot hold NUL, which a model may generate: the shard's write
    would fail on every retry. Each NUL is stored as U+FFFD, in the answer, the raw text and the scores."""
    run = _start(small_implicature_study, tiny_spec)
    shard = run.shards.get(index=0)
    generated = "asked.\x00 next\x00"
    answers = {
        item_id: ModelAnswer(
            answer=generated,
            raw_answer=generated,
            valid=True,
            correct=False,
            scores={"outputs": [generated], generated: 1},
        )
        for item_id in shard.item_ids
    }
    assert shards.shard_complete(shard=shard, worker="w1", answers=answers) == len(shard.item_ids)
    stored = "asked.\ufffd next\ufffd"
    for response in ModelResponse.objects.filter(run=run):
        assert response.answer == response.raw_answer == stored
        assert response.scores == {"outputs": [stored], stored: 1}
