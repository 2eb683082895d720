"""Two runs of one model over the same items, one scored in a single shard by one worker and one in
a shard per item by another, compared item by item (`manage.py compare_runs`, what
scripts/container-check prints after its scaled run)."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from annotation.services import benchmark_import
from modelruns import services, shards
from modelruns.models import ModelResponse, ModelRun
from studies.setup.studies import study_create
from tests.paths import REPO

pytestmark = pytest.mark.django_db

EXAMPLE = REPO / "parity" / "benchmarks" / "custom" / "example.csv"


@pytest.fixture
def two_runs(tiny_spec) -> tuple[ModelRun, ModelRun]:
    benchmark_import(name="custom", source=EXAMPLE, options={"name": "example"})
    runs = []
    for name, shard_size, worker in (("one worker", 8, "host-a:7:task"), ("several workers", 1, "host-b:7:task")):
        study = study_create(name=name, benchmark="custom", design={"item_set": "example", "unit_size": 0})
        run = services.modelrun_start(study=study, spec=tiny_spec, enqueue=False, shard_size=shard_size).run
        shards.modelrun_work(run=run, worker=worker)
        run.refresh_from_db()
        assert run.status == ModelRun.Status.DONE, run.error
        runs.append(run)
    return runs[0], runs[1]


def _compare(left: ModelRun, right: ModelRun) -> list[str]:
    out = StringIO()
    call_command("compare_runs", str(left.pk), str(right.pk), stdout=out)
    return out.getvalue().splitlines()


def _bumped(scores: dict, by: float) -> tuple[dict, str]:
    """The scores with their first number (depth first) raised by `by`, and that number's dotted path."""
    for key, value in sorted(scores.items()):
        if isinstance(value, float):
            return {**scores, key: value + by}, key
        if isinstance(value, dict):
            try:
                inner, path = _bumped(value, by)
            except LookupError:
                continue
            return {**scores, key: inner}, f"{key}.{path}"
    raise LookupError("no number in the scores")


def test_runs_of_the_same_items_in_other_shards_by_other_workers_have_the_same_answers(two_runs):
    left, right = two_runs
    lines = _compare(left, right)
    assert lines[0].startswith(f"run {left.pk}: {left.spec.name} on 'one worker', done, 1 shards;")
    assert lines[0].endswith("shards done by host: host-a 1")
    assert lines[1].endswith("8 shards; shards done by host: host-b 8")
    responses = list(ModelResponse.objects.filter(run=left).select_related("item").order_by("item__key"))
    assert len(responses) == 8
    rows = lines[3:-1]
    for response, row in zip(responses, rows, strict=True):
        other = ModelResponse.objects.get(run=right, item=response.item, variant=response.variant)
        shown = " ".join(response.answer.split()) or "(invalid)"
        assert row.startswith(response.item.key) and row.endswith(" yes")
        assert shown[:23] in row and other.answer == response.answer
        assert ("yes/yes" if response.correct else "no/no") in row
    assert lines[-1].startswith("the same answers: 8 items, largest score difference ")


def test_a_changed_answer_a_changed_score_and_a_missing_answer_are_each_named(two_runs):
    left, right = two_runs
    changed, scored, dropped = ModelResponse.objects.filter(run=right).select_related("item").order_by("item__key")[:3]
    ModelResponse.objects.filter(pk=changed.pk).update(answer=changed.answer + " changed", correct=not changed.correct)
    scores, number = _bumped(scored.scores, 0.01)
    ModelResponse.objects.filter(pk=scored.pk).update(scores=scores)
    ModelResponse.objects.filter(pk=dropped.pk).delete()

    out = StringIO()
    with pytest.raises(CommandError, match=r"^the runs differ: 3 of 8 items, largest score difference 0\.01 "):
        call_command("compare_runs", str(left.pk), str(right.pk), stdout=out)
    rows = {line.split()[0]: line for line in out.getvalue().splitlines()[3:]}
    assert rows[changed.item.key].endswith("NO: answer, correct")
    assert rows[scored.item.key].endswith(f"NO: scores.{number}")
    assert rows[dropped.item.key].endswith("NO: no answer in the right run")
    same = [row for key, row in rows.items() if key not in {changed.item.key, scored.item.key, dropped.item.key}]
    assert len(same) == 5 and all(row.endswith(" yes") for row in same)


def test_an_unknown_run_is_named(two_runs):
    left, _ = two_runs
    with pytest.raises(CommandError, match="no model run 999999"):
        call_command("compare_runs", str(left.pk), "999999")
