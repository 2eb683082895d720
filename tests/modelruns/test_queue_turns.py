"""The database queue takes the model runs' shards in turn: a small run queued behind a large one
waits for one shard of it, not for all of it, and its "Nth in queue" counts only the runs before it."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import call_command

from modelruns import selectors, services
from modelruns.models import ModelRun, ModelShard
from tests.factories import small_study

pytestmark = pytest.mark.django_db(transaction=True)  # the database worker closes its connection between tasks


def _order_scored() -> list[tuple[str, int]]:
    done = ModelShard.objects.filter(status=ModelShard.Status.DONE).order_by("finished_at", "pk")
    return [(shard.run.study.name, shard.index) for shard in done.select_related("run__study")]


def test_a_small_run_queued_behind_a_large_one_is_scored_after_one_shard_of_it(implicature, researcher, tiny_spec):
    large = small_study("large", unit_size=5, units=2, per_unit=1, attention_checks=0, owner=researcher)
    small = small_study("small", unit_size=2, units=1, per_unit=1, attention_checks=0, owner=researcher)
    big = services.modelrun_start(study=large, spec=tiny_spec, shard_size=2).run
    little = services.modelrun_start(study=small, spec=tiny_spec, shard_size=4).run
    assert (big.shards.count(), little.shards.count()) == (5, 1)
    # the large run's five tasks are queued before the small run's one
    assert selectors.queue_positions() == {big.pk: 1, little.pk: 2}

    call_command(
        "db_worker", "--queue-name", "models", "--batch", "--no-startup-delay", stdout=StringIO(), stderr=StringIO()
    )

    assert _order_scored() == [("large", 0), ("small", 0), ("large", 1), ("large", 2), ("large", 3), ("large", 4)]
    assert set(ModelRun.objects.values_list("status", flat=True)) == {ModelRun.Status.DONE}


def test_a_queued_run_counts_only_the_runs_still_waiting_before_it(implicature, researcher, tiny_spec):
    studies = [
        small_study(name, unit_size=2, units=1, per_unit=1, attention_checks=0, owner=researcher)
        for name in ("demo", "mine", "theirs")
    ]
    demo, mine, theirs = (services.modelrun_start(study=study, spec=tiny_spec, enqueue=False).run for study in studies)
    ModelRun.objects.filter(pk=demo.pk).update(status=ModelRun.Status.RUNNING)
    # the running demo's later shards come after the first shard of each queued run
    assert selectors.queue_positions() == {mine.pk: 1, theirs.pk: 2}


def test_a_researchers_run_queued_behind_the_demos_is_scored_before_any_of_it(implicature, researcher, tiny_spec):
    """The demo's own runs (`setup_demo`) are in the background: a researcher's run queued after
    them waits for none of their shards, not even their first."""
    demo = small_study("demo", unit_size=5, units=2, per_unit=1, attention_checks=0, owner=researcher)
    mine = small_study("mine", unit_size=2, units=1, per_unit=1, attention_checks=0, owner=researcher)
    other = small_study("other demo", unit_size=2, units=1, per_unit=1, attention_checks=0, owner=researcher)
    big = services.modelrun_start(study=demo, spec=tiny_spec, shard_size=2, background=True).run
    second = services.modelrun_start(study=other, spec=tiny_spec, shard_size=2, background=True).run
    little = services.modelrun_start(study=mine, spec=tiny_spec, shard_size=4).run
    assert (big.background, second.background, little.background) == (True, True, False)
    assert selectors.queue_positions() == {little.pk: 1, big.pk: 2, second.pk: 3}

    call_command(
        "db_worker", "--queue-name", "models", "--batch", "--no-startup-delay", stdout=StringIO(), stderr=StringIO()
    )

    # the researcher's run first; then the background runs' shards in turn among themselves
    assert _order_scored() == [
        ("mine", 0),
        ("demo", 0),
        ("other demo", 0),
        ("demo", 1),
        ("demo", 2),
        ("demo", 3),
        ("demo", 4),
    ]
    assert set(ModelRun.objects.values_list("status", flat=True)) == {ModelRun.Status.DONE}
