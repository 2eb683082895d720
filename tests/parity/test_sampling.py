"""Which items a study shows (`parity.sampling`): all, a random subset or a stratified one, drawn from
the seed alone."""

from __future__ import annotations

from collections import Counter

import pytest

from parity.sampling import ALL, RANDOM, STRATIFIED, STRATIFIED_EACH, ItemSampling, allocation, describe, sample

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


#: the implicature test set's types (the paper's counts, `ImplicatureBenchmark._types`)
IMPLICATURE_TYPES = {
    "Other": 387,
    "Particularised": 88,
    "Generalised": 46,
    "Idiom": 44,
    "World knowledge": 23,
    "Rhetorical question": 11,
    "Hyperbole": 1,
}


def test_a_stratified_allocation_is_each_categorys_share_by_largest_remainder():
    # 45 of 600: Other's exact share is 29.0, Rhetorical question's 0.8, Hyperbole's 0.1
    exact = {name: 45 * count / 600 for name, count in IMPLICATURE_TYPES.items()}
    given = allocation(IMPLICATURE_TYPES, 45)
    assert given == {
        "Other": 29,
        "Particularised": 7,
        "Generalised": 3,
        "Idiom": 3,
        "World knowledge": 2,
        "Rhetorical question": 1,
        "Hyperbole": 0,
    }
    assert sum(given.values()) == 45
    assert all(abs(given[name] - exact[name]) < 1 for name in given)


def test_at_least_one_of_each_gives_every_category_one_first_and_shares_the_rest():
    given = allocation(IMPLICATURE_TYPES, 45, at_least_one=True)
    assert given == {
        "Other": 26,
        "Particularised": 6,
        "Generalised": 4,
        "Idiom": 4,
        "World knowledge": 2,
        "Rhetorical question": 2,
        "Hyperbole": 1,
    }
    assert allocation({"big": 97, "small": 2, "tiny": 1}, 3, at_least_one=True) == {"big": 1, "small": 1, "tiny": 1}
    assert allocation({"big": 97, "small": 2, "tiny": 1}, 10, at_least_one=True) == {"big": 8, "small": 1, "tiny": 1}
    assert allocation({"big": 97, "small": 2, "tiny": 1}, 10) == {"big": 10, "small": 0, "tiny": 0}


def test_an_allocation_never_gives_more_than_a_category_holds_nor_more_than_asked():
    assert sum(allocation({"x": 5, "y": 3, "z": 3}, 2, at_least_one=True).values()) == 2  # fewer than the categories
    assert allocation({"x": 2, "y": 1}, 5) == {"x": 2, "y": 1}
    assert allocation({"x": 1, "y": 1, "z": 8}, 9) == {"x": 1, "y": 1, "z": 7}


def test_the_two_stratified_draws_differ_only_in_the_allocation():
    keys = [f"i{n:03d}" for n in range(600)]
    categories = [name for name, count in IMPLICATURE_TYPES.items() for _ in range(count)]
    for method, at_least_one in ((STRATIFIED, False), (STRATIFIED_EACH, True)):
        drawn = sample(keys, categories, ItemSampling(method, 45, 3))
        by_category = Counter(categories[keys.index(key)] for key in drawn)
        wanted = {name: n for name, n in allocation(IMPLICATURE_TYPES, 45, at_least_one=at_least_one).items() if n}
        assert by_category == wanted


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
    assert describe(ItemSampling(STRATIFIED_EACH, 45, 7), drawn=45, available=600) == (
        "45 of the 600 items, drawn at random stratified by category, at least one of each category, with seed 7"
    )
    assert describe(ItemSampling(ALL), drawn=600, available=600) == "all 600 items"
