"""Which of a benchmark's items a study shows: all of them (in file order), a random subset of N, or a
subset of N stratified by the items' categories. The draw is a function of the seed alone, so the
same seed gives the same items on any machine and the methods can state how to draw them again."""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

ALL = "all"
RANDOM = "random"
STRATIFIED = "stratified"
METHODS = (ALL, RANDOM, STRATIFIED)


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


def allocation(counts: dict[str, int], size: int) -> dict[str, int]:
    """How many of `size` items each category gets: proportional to its share (largest remainders,
    ties broken by the category's name), at least one per category while `size` allows, never more
    than the category holds."""
    total = sum(counts.values())
    names = sorted(counts)
    if size >= total:
        return dict(counts)
    floor_one = size >= len(names)
    given = {name: (1 if floor_one and counts[name] else 0) for name in names}
    left = size - sum(given.values())
    # the rest shared in proportion to what each category still holds
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
        quota = allocation({name: len(indices) for name, indices in members.items()}, sampling.size)
        chosen = set()
        for name in sorted(members):
            chosen.update(draw.sample(members[name], quota[name]))
    return [key for index, key in enumerate(keys) if index in chosen]


def describe(sampling: ItemSampling, *, drawn: int, available: int) -> str:
    """The methods' words: "30 of the 600 items, drawn at random stratified by category with seed 1234"."""
    if sampling.method == ALL:
        return f"all {available} items"
    how = "drawn at random stratified by category" if sampling.method == STRATIFIED else "drawn at random"
    return f"{drawn} of the {available} items, {how} with seed {sampling.seed}"
