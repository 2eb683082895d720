from __future__ import annotations

from typing import Any

from parity.engine import ChoiceRequest, Engine
from parity.engine.forward import make_batches


def test_batches_are_length_sorted_deterministic_and_within_the_budget() -> None:
    lengths = [5, 9, 9, 3, 7, 9, 1]
    batches = make_batches(lengths, token_budget=20, max_rows=8)
    assert [b.rows for b in batches] == [(1, 2), (5, 4), (0, 3, 6)]
    assert all(len(b.rows) * b.width <= 20 for b in batches)
    assert [b.width for b in batches] == [9, 9, 5]


def test_a_row_much_shorter_than_the_batch_width_starts_a_new_batch() -> None:
    batches = make_batches([100, 95, 60, 58], token_budget=10_000, max_rows=8, max_padding=0.1)
    assert [b.rows for b in batches] == [(0, 1), (2, 3)]


def test_a_row_longer_than_the_budget_still_gets_a_batch_of_its_own() -> None:
    assert [b.rows for b in make_batches([50, 10], token_budget=16, max_rows=4)] == [(0,), (1,)]


def test_identical_work_is_run_once_and_answered_for_every_request(tiny_lm: Any) -> None:
    context = 'Finish the following text:\n\nEsther asked "Is it late?" and Juan responded "Yes.", which means'
    engine = Engine(tiny_lm)
    first, second = engine.score_choices(
        [ChoiceRequest("a", context, (" yes", " no")), ChoiceRequest("b", context, (" yes", " no"))]
    )
    assert engine.stats.rows == 1
    assert (first.key, second.key) == ("a", "b") and first.scores == second.scores
