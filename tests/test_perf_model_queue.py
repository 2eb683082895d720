"""perf/model_queue.py's arithmetic: each shard's seconds from one worker's finishes, the demo's seconds
per item without the worker's first shard (the model's load), the first-in-first-out estimate, the
figures read from the records; and its arguments refused before anything is set up."""

from __future__ import annotations

import subprocess
import sys

import pytest

from perf.model_queue import Finish, fifo_wait, figures, seconds_per_item, shard_seconds
from tests.paths import REPO

# one worker started at 100: the demo's first shard (the model's load) at 160, the demo's second at
# 170, the small run's one at 171, the demo's third at 191
DEMO, SMALL = 1, 9
FINISHES = [Finish(DEMO, 170.0, 50), Finish(DEMO, 160.0, 64), Finish(SMALL, 171.0, 45), Finish(DEMO, 191.0, 40)]


def test_each_shard_takes_the_time_since_the_workers_previous_finish() -> None:
    timed = shard_seconds(FINISHES, began=100.0)
    assert [(finish.at, seconds) for finish, seconds in timed] == [
        (160.0, 60.0),
        (170.0, 10.0),
        (171.0, 1.0),
        (191.0, 20.0),
    ]


def test_the_demos_seconds_per_item_leave_out_the_workers_first_shard_and_the_other_runs() -> None:
    per_item, measured = seconds_per_item(FINISHES, began=100.0, runs={DEMO})
    assert per_item == pytest.approx(30.0 / 90)
    assert measured == 2
    assert seconds_per_item(FINISHES[1:2], began=100.0, runs={DEMO})[1] == 0


def test_a_first_in_first_out_queue_waits_for_every_item_left_at_its_runs_rate() -> None:
    # run 2 had no shard measured: the demo's overall rate stands for it
    assert fifo_wait({1: 100, 2: 10}, {1: 0.5, 2: float("nan")}, 2.0) == 70.0


def test_the_figures_are_read_from_the_records() -> None:
    found = {
        "queued_at": 165.0,
        "position": 2,
        "run": {"items": 45, "shards": 1, "status": "done", "started_at": 170.5, "finished_at": 171.0},
        "demo_runs": [{"id": DEMO, "study": "demo", "items": 154, "status": "done", "finished_at": 191.0}],
        "finishes": [vars(finish) for finish in FINISHES],
    }
    result = figures(found, model="smollm2", worker_began=100.0, load_average=1.5)
    assert (result.position, result.runs_ahead, result.wait_s, result.scoring_s, result.total_s) == (
        2,
        1,
        5.5,
        0.5,
        6.0,
    )
    # 64 items were scored when it was queued; 114 by the time it was done
    assert (result.demo_items, result.demo_items_left, result.demo_items_before_done) == (154, 90, 114)
    assert result.demo_shards_before_done == 2
    assert result.fifo_wait_s == pytest.approx(90 * 30.0 / 90)
    assert result.demo_drained_s == 26.0


def test_arguments_out_of_range_are_refused_before_the_demo_is_set_up() -> None:
    done = subprocess.run(
        [sys.executable, "perf/model_queue.py", "--items", "0"], cwd=REPO, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 2
    assert "--items must be 1 or more" in done.stderr
