"""The `study_results --json` text of two studies, byte for byte as it was written before the results
became a typed tree (`results.computing.tree`): the published implicature study with two model runs beside its
20 annotators, and a native pilot study answered through the views. The database's numbering (the
study's and the runs' ids) is replaced by names before the comparison; nothing else is.

Every figure is compared exactly but those of the item-response fit (`irt`): its optimiser stops at
a tolerance, and the last bits of its floats differ between processors and numpy's builds (seen: a
relative 7e-8 between two machines with the same pins). Those are compared to a relative 1e-6, and
the section's keys, their order and every other value exactly.

Set PARITY_GOLDEN_WRITE=1 to write the files anew (only for a change of the JSON that is meant).
"""

from __future__ import annotations

import json
import math
import os
import re
from datetime import UTC, datetime, timedelta
from io import StringIO
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from django.core.management import call_command

from studies.models import Study
from tests.results.conftest import BASELINE_NAME, FLIP, Built, model_run

pytestmark = pytest.mark.django_db

GOLDEN = Path(__file__).parent / "golden"


@pytest.fixture(scope="module")
def baseline_runs(baseline: Built) -> list[int]:
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
    return [gold_run.pk, coin_run.pk]


def _json_text(name: str) -> str:
    out = StringIO()
    call_command("study_results", name, "--json", stdout=out)
    return out.getvalue()


def _named(text: str, study_id: int, run_ids: list[int]) -> str:
    """The text with the database's ids replaced by names (`"study_id": "<study>"`, `"run": "<run 1>"`)."""
    text = text.replace(f'"study_id": {study_id},', '"study_id": "<study>",')
    for number, run_id in enumerate(run_ids, start=1):
        text = re.sub(rf'"run": {run_id}([,}}])', rf'"run": "<run {number}>"\1', text)
    return text


def _check(name: str, text: str) -> None:
    path = GOLDEN / f"{name}.json"
    if os.environ.get("PARITY_GOLDEN_WRITE"):
        path.write_text(text, encoding="utf-8")
    got, want = json.loads(text), json.loads(path.read_text(encoding="utf-8"))
    got_fit, want_fit = got.pop("irt", None), want.pop("irt", None)
    assert json.dumps(got) == json.dumps(want)
    _assert_close(got_fit, want_fit, "irt")


def _assert_close(got: Any, want: Any, where: str) -> None:
    """The same JSON, keys in the same order, floats to a relative 1e-6 (see the module doc)."""
    if isinstance(want, float) and isinstance(got, float):
        assert math.isclose(got, want, rel_tol=1e-6, abs_tol=1e-12), f"{where}: {got} != {want}"
    elif isinstance(want, dict) and isinstance(got, dict):
        assert list(got) == list(want), f"{where}: keys {list(got)} != {list(want)}"
        for key in want:
            _assert_close(got[key], want[key], f"{where}.{key}")
    elif isinstance(want, list) and isinstance(got, list):
        assert len(got) == len(want), f"{where}: {len(got)} entries != {len(want)}"
        for n, (one, other) in enumerate(zip(got, want)):
            _assert_close(one, other, f"{where}[{n}]")
    else:
        assert got == want and type(got) is type(want), f"{where}: {got!r} != {want!r}"


def test_a_changed_figure_of_the_fit_is_caught_and_its_last_bits_are_not() -> None:
    _assert_close({"a": [1.0, 2.0]}, {"a": [1.0 + 1e-9, 2.0]}, "irt")
    for changed in ({"a": [1.0001, 2.0]}, {"b": [1.0, 2.0]}, {"a": [1.0]}, {"a": [1, 2.0]}):
        with pytest.raises(AssertionError):
            _assert_close(changed, {"a": [1.0, 2.0]}, "irt")


def test_the_json_of_the_published_study_with_two_runs_is_unchanged(baseline, baseline_runs) -> None:
    _check("published_implicature", _named(_json_text(BASELINE_NAME), baseline.study_id, baseline_runs))


@pytest.fixture(scope="module")
def pilot_times(pilot: Built) -> None:
    """The pilot's participants started and finished at fixed times (the methods' dates and pay)."""
    from studies.models import Participant

    start = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
    for n, person in enumerate(Participant.objects.filter(study_id=pilot.study_id).order_by("pk")):
        began = start + timedelta(minutes=7 * n)
        Participant.objects.filter(pk=person.pk).update(
            started_at=began, completed_at=None if person.completed_at is None else began + timedelta(minutes=21 + n)
        )


def test_the_json_of_a_native_study_is_unchanged(pilot, pilot_times) -> None:
    from modelruns.models import ModelRun

    runs = list(ModelRun.objects.filter(study_id=pilot.study_id).order_by("pk").values_list("pk", flat=True))
    _check("native_pilot", _named(_json_text(pilot.name), pilot.study_id, runs))
