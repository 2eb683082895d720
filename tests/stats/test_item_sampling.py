"""Which items a study shows (`parity.sampling`): all, a random subset or a stratified one, drawn from
the seed alone."""

from __future__ import annotations

from collections import Counter

import pytest

from parity.sampling import ALL, RANDOM, STRATIFIED, ItemSampling, allocation, describe, sample

KEYS = [f"k{i:03d}" for i in range(600)]
#: three categories of 300, 200 and 100 items, interleaved as a file would hold them
CATEGORIES = ["a" if i % 6 < 3 else "b" if i % 6 < 5 else "c" for i in range(600)]


def test_all_keeps_every_item_in_file_order():
    assert sample(KEYS, CATEGORIES, ItemSampling(ALL)) == KEYS


def test_the_same_seed_draws_the_same_items_and_another_seed_others():
    first = sample(KEYS, CATEGORIES, ItemSampling(RANDOM, 30, 1234))
    assert first == sample(KEYS, CATEGORIES, ItemSampling(RANDOM, 30, 1234))
    assert first != sample(KEYS, CATEGORIES, ItemSampling(RANDOM, 30, 1235))
    assert len(first) == 30 and first == sorted(first)  # kept in file order


def test_a_stratified_draw_follows_the_categories_shares():
    drawn = sample(KEYS, CATEGORIES, ItemSampling(STRATIFIED, 30, 7))
    by_category = Counter(CATEGORIES[KEYS.index(key)] for key in drawn)
    assert by_category == {"a": 15, "b": 10, "c": 5}
    assert drawn == sample(KEYS, CATEGORIES, ItemSampling(STRATIFIED, 30, 7))


def test_every_category_gets_one_where_the_size_allows_and_the_rest_by_largest_remainder():
    assert allocation({"big": 97, "small": 2, "tiny": 1}, 3) == {"big": 1, "small": 1, "tiny": 1}
    assert allocation({"big": 97, "small": 2, "tiny": 1}, 10) == {"big": 8, "small": 1, "tiny": 1}
    assert sum(allocation({"x": 5, "y": 3, "z": 3}, 2).values()) == 2  # fewer than the categories
    assert allocation({"x": 2, "y": 1}, 5) == {"x": 2, "y": 1}  # never more than there are


def test_a_wrong_choice_is_named():
    assert ItemSampling(RANDOM, None, 1).errors() == ["give the number of items to draw (1 or more)"]
    assert ItemSampling(RANDOM, 700, 1).errors(600) == ["700 items asked for, but only 600 are there to draw from"]
    assert ItemSampling("sometimes").errors()[0].startswith("no item sampling named")
    with pytest.raises(ValueError):
        sample(KEYS[:5], CATEGORIES[:5], ItemSampling(RANDOM, 3, None))


def test_the_methods_words():
    assert describe(ItemSampling(STRATIFIED, 30, 1234), drawn=30, available=600) == (
        "30 of the 600 items, drawn at random stratified by category with seed 1234"
    )
    assert describe(ItemSampling(ALL), drawn=600, available=600) == "all 600 items"
