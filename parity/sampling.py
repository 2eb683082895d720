"""Which of a benchmark's items a study shows: all of them (in file order), a random subset of N, or a
subset of N stratified by the items' categories: in proportion to each category's share, or so with at
least one item of every category (`allocation`). The draw is a function of the seed alone, so the
same seed gives the same items on any machine and the methods can state how to draw them again."""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

ALL = "all"
RANDOM = "random"
STRATIFIED = "stratified"
STRATIFIED_EACH = "stratified_each"
METHODS = (ALL, RANDOM, STRATIFIED, STRATIFIED_EACH)
#: the methods that draw by category
BY_CATEGORY = (STRATIFIED, STRATIFIED_EACH)


@dataclass(frozen=True)
class ItemSampling:
    method: str = ALL
    #: how many items to keep (None with ALL)
    size: int | None = None
    seed: int | None = None

    def errors(self, available: int | None = None) -> list[str]:
        """What is wrong with the choice, in words; `available` the items there are to draw from."""
        if self.method not in METHODS:
            return [f"no item sampling named {self.method!r}; known: {', '.join(METHODS)}"]
        if self.method == ALL:
            return []
        problems = []
        if not self.size or self.size < 1:
            problems.append("give the number of items to draw (1 or more)")
        elif available is not None and self.size > available:
            problems.append(f"{self.size} items asked for, but only {available} are there to draw from")
        if self.seed is None:
            problems.append("a sample needs a seed")
        return problems


def allocation(counts: dict[str, int], size: int, *, at_least_one: bool = False) -> dict[str, int]:
    """How many of `size` items each category gets, by largest remainder: each category's exact share
    of `size` (in proportion to the items it holds) rounded down, the items left over going one each
    to the largest remainders (ties broken by the category's name), never more than a category holds.

    `at_least_one`, where `size` allows one per category: one item of every category first, and the
    rest shared so in proportion to the items each category has left (how every stratified draw was
    made before proportional ones: such studies are recorded as `stratified_each`, and their draws
    repeat exactly)."""
    total = sum(counts.values())
    names = sorted(counts)
    if size >= total:
        return dict(counts)
    floor_one = at_least_one and size >= len(names)
    given = {name: (1 if floor_one and counts[name] else 0) for name in names}
    left = size - sum(given.values())
    spare = {name: counts[name] - given[name] for name in names}
    spare_total = sum(spare.values())
    shares = {name: left * spare[name] / spare_total if spare_total else 0.0 for name in names}
    for name in names:
        given[name] += int(shares[name])
    left = size - sum(given.values())
    by_remainder = sorted(names, key=lambda name: (-(shares[name] - int(shares[name])), name))
    for name in by_remainder:
        if left <= 0:
            break
        if given[name] < counts[name]:
            given[name] += 1
            left -= 1
    return given


def sample(keys: Sequence[str], categories: Sequence[str], sampling: ItemSampling) -> list[str]:
    """The keys `sampling` keeps, in their original order (units are cut from them as before).
    `categories[i]` is the category of `keys[i]` ("" when it has none)."""
    if sampling.method == ALL or sampling.size is None or sampling.size >= len(keys):
        return list(keys)
    problems = sampling.errors(len(keys))
    if problems:
        raise ValueError("; ".join(problems))
    draw = random.Random(sampling.seed)
    if sampling.method == RANDOM:
        chosen = set(draw.sample(range(len(keys)), sampling.size))
    else:
        members: dict[str, list[int]] = {}
        for index, category in enumerate(categories):
            members.setdefault(category, []).append(index)
        counts = {name: len(indices) for name, indices in members.items()}
        quota = allocation(counts, sampling.size, at_least_one=sampling.method == STRATIFIED_EACH)
        chosen = set()
        for name in sorted(members):
            chosen.update(draw.sample(members[name], quota[name]))
    return [key for index, key in enumerate(keys) if index in chosen]


#: how a stratified draw is said after "drawn at random"
HOW = {
    STRATIFIED: " stratified by category",
    STRATIFIED_EACH: " stratified by category, at least one of each category,",
}


def describe(sampling: ItemSampling, *, drawn: int, available: int) -> str:
    """The methods' words: "30 of the 600 items, drawn at random stratified by category with seed 1234"."""
    if sampling.method == ALL:
        return f"all {available} items"
    how = "drawn at random" + HOW.get(sampling.method, "")
    return f"{drawn} of the {available} items, {how} with seed {sampling.seed}"
