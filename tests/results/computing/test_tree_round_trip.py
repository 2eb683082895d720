"""`StudyResults.from_json` is the inverse of `to_json`: the tree read back from its JSON text (as a
replication bundle's analysis file holds it) is the tree, and writes the same text, on the published
implicature study with two model runs and on a native pilot study with its runs."""

from __future__ import annotations

import json

import numpy as np
import pytest

from results.computing.assemble import study_results_tree
from results.computing.tree import StudyResults
from results.loading.selectors import load_study_data
from studies.models import Study
from tests.results.conftest import FLIP, Built, model_run

pytestmark = pytest.mark.django_db


def _round_trip(study: Study) -> StudyResults:
    tree = study_results_tree(load_study_data(study), n_boot=200)
    text = json.dumps(tree.to_json(), ensure_ascii=False, allow_nan=False)
    again = StudyResults.from_json(json.loads(text))
    assert again == tree
    assert json.dumps(again.to_json(), ensure_ascii=False, allow_nan=False) == text
    return again


def test_the_published_study_with_two_runs_comes_back_from_its_json(baseline: Built) -> None:
    from annotation.models import Item

    study = Study.objects.get(pk=baseline.study_id)
    golds = dict(Item.objects.filter(unititem__unit__study=study).values_list("key", "gold"))
    coin = np.random.default_rng(1).random(len(golds)) < 0.5
    base = {"variant": "ranking", "k": 0, "shots_seed": 0}
    model_run(study, "tiny-lm", {**base, "template": 1}, golds)
    model_run(
        study,
        "tiny-lm",
        {**base, "template": 2},
        {key: FLIP[gold] if flip else gold for (key, gold), flip in zip(sorted(golds.items()), coin)},
    )
    again = _round_trip(study)
    # the sections the JSON writes into their nodes come back typed
    assert again.paired and again.paired[0].test.mcnemar.n_items == again.paired[0].test.n_items
    assert again.human_band and again.irt is not None and not again.human.graded


def test_a_native_study_comes_back_from_its_json(pilot: Built) -> None:
    again = _round_trip(Study.objects.get(pk=pilot.study_id))
    assert again.models and again.methods


def test_reading_a_tree_again_resolves_no_class_annotations_again(pilot: Built) -> None:
    # a large study's tree holds hundreds of nodes of a few classes: each class's annotations are
    # resolved once per process, not once per node
    from parity.records import _hints

    again = _round_trip(Study.objects.get(pk=pilot.study_id))
    text = again.to_json()
    resolved = _hints.cache_info().misses
    assert StudyResults.from_json(text) == again
    assert _hints.cache_info().misses == resolved and _hints.cache_info().hits > 0
