"""Sentences that come back within an AmbiBench episode.

The authors draw every word of every sentence with `random.choice` (kunhanda/task_ambiguity,
example_generation.py), so sentences are drawn with replacement and one can come back within 20
examples; Parity generates the same way. What `import_benchmark ambibench` stores is
`AmbiBench.load` with its defaults (seed 0, 720 episodes): generated, no file is read.
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path
from types import SimpleNamespace

import pytest

from parity.benchmarks.ambibench import AmbiBench
from parity.benchmarks.ambibench.sections import AmbiBenchSections, RepeatSplit
from parity.benchmarks.base import ItemData, ResultsInput

BENCH = AmbiBench()


@pytest.fixture(scope="module")
def imported() -> list[ItemData]:
    return BENCH.load(Path(".")).items


@pytest.fixture(scope="module")
def episodes(imported) -> dict[str, list[ItemData]]:
    grouped: dict[str, list[ItemData]] = defaultdict(list)
    for item in imported:
        if item.split == "episode":
            grouped[item.prompt["episode"]].append(item)
    return {key: sorted(items, key=lambda item: item.prompt["position"]) for key, items in grouped.items()}


def _counts(episodes: list[list[ItemData]]) -> tuple[int, int, int]:
    """(episodes repeating a sentence, episodes repeating one back to back, answers on a repeat),
    from the sentences themselves."""
    with_repeat = back_to_back = repeated = 0
    for items in episodes:
        sentences = [item.prompt["sentence"] for item in items]
        with_repeat += len(set(sentences)) < len(sentences)
        back_to_back += any(first == second for first, second in zip(sentences, sentences[1:]))
        repeated += len(sentences) - len(set(sentences))
    return with_repeat, back_to_back, repeated


def test_222_of_the_720_imported_episodes_repeat_a_sentence_16_of_them_back_to_back(episodes) -> None:
    assert len(episodes) == 720
    assert _counts(list(episodes.values())) == (222, 16, 267)
    flagged = [item for items in episodes.values() for item in items if item.meta["repeat_of"] is not None]
    assert len(flagged) == 267 and len({item.prompt["episode"] for item in flagged}) == 222
    assert sum(item.meta["repeat_of"] == item.prompt["position"] - 1 for item in flagged) == 16  # one per episode


def test_a_repeat_names_the_position_its_sentence_first_came_at_and_carries_the_same_label(episodes) -> None:
    for items in episodes.values():
        first: dict[str, ItemData] = {}
        for item in items:
            earlier = first.setdefault(item.prompt["sentence"], item)
            expected = None if earlier is item else earlier.prompt["position"]
            assert item.meta["repeat_of"] == expected
            assert item.gold == earlier.gold  # the label is the sentence's: the earlier one gives it away
    first = episodes["ep-0001"]
    assert [(item.prompt["position"], item.meta["repeat_of"]) for item in first if item.meta["repeat_of"]] == [
        (8, 7),
        (19, 1),
    ]
    assert first[7].prompt["sentence"] == first[6].prompt["sentence"] == "The worm is in the canyon."


def test_the_default_study_of_96_episodes_holds_33_answers_on_a_repeat(imported) -> None:
    by_key = {item.key: item for item in imported}
    units = [[by_key[key] for key in unit] for unit in BENCH.build_units(imported, BENCH.design())]
    assert len(units) == 96
    assert _counts(units) == (29, 2, 33)  # of 1,920 answers
    assert sum(item.meta["repeat_of"] is not None for unit in units for item in unit) == 33


def _results(items: list[ItemData], human_correct: dict[int, bool], model_correct: dict[int, bool]) -> ResultsInput:
    by_key = {item.key: SimpleNamespace(key=item.key, gold=item.gold, meta=item.meta, units=[]) for item in items}
    humans = [
        SimpleNamespace(
            annotator="A1", item_key=item.key, meta=item.meta, valid=True, correct=human_correct.get(position, True)
        )
        for position, item in enumerate(items, start=1)
    ]
    rows = [
        SimpleNamespace(item_key=item.key, variant="", valid=True, correct=model_correct.get(position, True))
        for position, item in enumerate(items, start=1)
    ]
    return ResultsInput(
        items=by_key,
        humans=humans,
        runs=[SimpleNamespace(id=1, label="model")],
        rows_by_run={1: rows},
        baseline_scores=[],
        category="",
        n_boot=10,
        seed=0,
        item_passes=lambda key: True,
        item_scores=lambda rows: {},
        setting_label=lambda setting: "",
    )


def test_the_results_count_answers_on_a_repeat_apart_with_accuracy_excluding_them(episodes) -> None:
    # ep-0001 repeats position 7 at 8 and position 1 at 19: the person is wrong at 1-4, right on
    # both repeats; the model is wrong at 8 only
    results = _results(episodes["ep-0001"], {1: False, 2: False, 3: False, 4: False}, {8: False})
    sections = BENCH.breakdowns(results)
    assert isinstance(sections, AmbiBenchSections) and sections.repeats is not None
    section = sections.repeats
    assert section.humans == RepeatSplit(
        n_answers=20,
        n_repeats=2,
        accuracy=16 / 20,
        accuracy_excluding_repeats=14 / 18,
        accuracy_on_repeats=1.0,
    )
    (model,) = section.models
    assert model.run == 1 and (model.split.n_repeats, model.split.accuracy_on_repeats) == (2, 0.5)
    assert model.split.accuracy_excluding_repeats == 1.0 and model.split.accuracy == 19 / 20
    # items imported before the flag carry no repeat_of: no section rather than one counting none
    unflagged = [
        ItemData(item.key, item.split, item.prompt, item.gold, {k: v for k, v in item.meta.items() if k != "repeat_of"})
        for item in episodes["ep-0001"]
    ]
    unflagged_sections = BENCH.breakdowns(_results(unflagged, {}, {}))
    assert isinstance(unflagged_sections, AmbiBenchSections)
    assert unflagged_sections.by_position is not None and unflagged_sections.repeats is None
    assert "repeats" not in unflagged_sections.to_json()
