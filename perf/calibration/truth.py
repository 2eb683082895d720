"""Studies drawn from a known truth: people and items from an item-response model, at the layouts
researchers use, with a "model" whose chance of a right answer on each item is set by a scenario.

People's abilities θ ~ N(0, 1) (the population's mean is the scale's origin, its SD the unit);
item difficulties b ~ N(mean, sd) (or skewed easy); discriminations a = 1 (1PL) or log a ~ N(0, 0.3²)
(2PL). Person p answers item i right with probability σ(a_i (θ_p − b_i)). Every person of a unit
answers every item of that unit (the crossed-within-unit design of the implicature study); units
have their own people and items.

Where a layout screens with attention checks, a share of the people recruited are careless: they
answer every item at chance (`CHANCE`, the implicature's yes or no) and pass each check at chance,
where the attentive pass it with `ATTENTIVE_PASS`. Those failing `exclude_at` checks or more are
excluded, and their place is offered again, as Parity does (an excluded participant no longer holds
a slot of their unit): each unit recruits until it has its people, and only those kept are analysed.
The people population the truths are about is the attentive one (θ ~ N(0, 1)); the careless who pass
the checks are what the exclusion misses.

The truths a figure is measured against are computed here, never by the code under test:
- the population gap: E over items of (the model's chance − the people population's chance),
  the item population integrated by quadrature (`population_gap`);
- the sample's gap ("these people, on items like these"): the same with the drawn people of each
  unit in place of the population (`these_people_gap`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
from scipy import special, stats

from parity.stats.table import RatingTable

#: Gauss–Hermite nodes for the expectations over abilities and over item parameters
_NODES, _WEIGHTS = np.polynomial.hermite_e.hermegauss(61)
_WEIGHTS = _WEIGHTS / _WEIGHTS.sum()
LOG_A_SD = 0.3
#: a careless person's chance of a right answer, on an item and on an attention check
CHANCE = 0.5
#: an attentive person's chance of passing an attention check
ATTENTIVE_PASS = 0.97


@dataclass(frozen=True)
class Layout:
    name: str
    units: int
    people: int  # per unit
    items: int  # per unit
    irt: str = "1pl"
    difficulty_mean: float = 0.0
    difficulty_sd: float = 1.0
    #: items skewed easy: b = mean − |N(0, sd)| · 1.5 (a long tail of easy items, as in implicature)
    skewed_easy: bool = False
    description: str = ""
    #: the people population's SD in logits (1: the scale's unit). Drawn as θ ~ N(0, 1) with every
    #: item's a and b rescaled (a·sd, b/sd), the same answers, so every truth below holds unchanged
    people_sd: float = 1.0
    #: people in each unit where they differ (`people` is then their largest)
    unit_people: tuple[int, ...] = ()
    #: the share of answers missing at random
    missing: float = 0.0
    #: the share of people who drop out, each after a share of their items drawn uniformly
    dropout: float = 0.0
    #: the share of the people recruited who are careless (answering at chance)
    careless: float = 0.0
    #: attention checks per person, and the failures at which a person is excluded (0: never)
    checks: int = 0
    exclude_at: int = 0

    @property
    def n_items(self) -> int:
        return self.units * self.items

    @property
    def n_people(self) -> int:
        return self.units * self.people

    @property
    def complete(self) -> bool:
        """Every person of a unit answers every item of that unit."""
        return not (self.unit_people or self.missing or self.dropout)

    @property
    def screened(self) -> bool:
        """Careless people are recruited, or attention checks screen them."""
        return bool(self.careless or self.checks)


#: the layouts the calibration is measured at (the implicature study's is first)
LAYOUTS: dict[str, Layout] = {
    layout.name: layout
    for layout in (
        Layout("implicature", 4, 5, 150, description="4 units × 5 people × 150 items (the published study)"),
        Layout("one-unit", 1, 20, 150, description="one unit, 20 people × 150 items"),
        Layout("tiny", 1, 5, 20, description="one unit, 5 people × 20 items (a pilot)"),
        Layout("large-2pl", 1, 200, 150, irt="2pl", description="one unit, 200 people × 150 items, 2PL"),
        Layout(
            "easy",
            4,
            5,
            150,
            difficulty_mean=-1.0,
            skewed_easy=True,
            description="4 units × 5 people × 150 items, items skewed easy",
        ),
        # near the ceiling with few items: a model is often right on all of them
        Layout(
            "ceiling",
            1,
            100,
            20,
            difficulty_mean=-2.7,
            description="one unit, 100 people × 20 items, 89% right",
        ),
        Layout(
            "ceiling-20",
            1,
            20,
            20,
            difficulty_mean=-2.7,
            description="one unit, 20 people × 20 items, 89% right",
        ),
        Layout(
            "ceiling-150",
            1,
            150,
            30,
            difficulty_mean=-3.4,
            description="one unit, 150 people × 30 items, 93% right",
        ),
        Layout(
            "unbalanced",
            4,
            7,
            150,
            unit_people=(3, 5, 7, 5),
            description="4 units of 3/5/7/5 people × 150 items",
        ),
        Layout(
            "missing",
            4,
            5,
            150,
            missing=0.2,
            description="4 units × 5 people × 150 items, 20% of answers missing at random",
        ),
        Layout(
            "dropouts",
            4,
            5,
            150,
            dropout=0.3,
            description="4 units × 5 people × 150 items, 30% of people stop after a uniform share of their items",
        ),
        Layout(
            "hetero",
            4,
            5,
            150,
            people_sd=1.2,
            skewed_easy=True,
            description="4 units × 5 people × 150 items skewed easy, people's SD 1.2 logits",
        ),
        # the implicature study's screening (3 checks, excluded at 2 failures, a freed place refilled)
        # against a fifth of careless recruits, a share assumed, not measured
        Layout(
            "exclusions",
            4,
            5,
            150,
            careless=0.2,
            checks=3,
            exclude_at=2,
            description="4 units × 5 people × 150 items, 20% of recruits careless, excluded at 2 of 3 attention checks",
        ),
        Layout(
            "excl-easy",
            4,
            5,
            150,
            difficulty_mean=-1.0,
            skewed_easy=True,
            careless=0.2,
            checks=3,
            exclude_at=2,
            description="as exclusions, items skewed easy as in easy (people 84% right, the careless 50%)",
        ),
    )
}


@dataclass(frozen=True)
class Screening:
    """Everyone a screened study recruited, in the order they came: their unit, whether they were
    careless, how many attention checks they failed and whether they were kept (fewer failures than
    the threshold; a unit stops recruiting once full). A unit's kept people are the study's people
    of that unit, in order."""

    unit: np.ndarray
    careless: np.ndarray
    failures: np.ndarray
    kept: np.ndarray

    @property
    def excluded(self) -> np.ndarray:
        return ~self.kept

    def kept_careless(self) -> np.ndarray:
        """Per person of the study (unit by unit), whether they are careless."""
        return self.careless[self.kept]


@dataclass(frozen=True)
class Draw:
    """One simulated study."""

    layout: Layout
    theta: np.ndarray  # people's abilities, unit by unit (unit k: rows k·people … (k+1)·people − 1)
    b: np.ndarray  # item difficulties, unit by unit
    a: np.ndarray  # item discriminations (ones in the 1PL)
    right: np.ndarray  # units × people × items, 0/1
    unit_of_person: np.ndarray = field(repr=False)
    unit_of_item: np.ndarray = field(repr=False)
    #: units × people × items: which answers were given (None: all of them)
    answered: np.ndarray | None = field(default=None, repr=False)
    #: who was recruited and screened out, where the layout screens (None: nobody careless)
    screening: Screening | None = field(default=None, repr=False)

    @property
    def careless(self) -> np.ndarray:
        """Per person (unit by unit), whether they answered at chance."""
        if self.screening is None:
            return np.zeros(self.theta.size, dtype=bool)
        return self.screening.kept_careless()

    def present(self) -> np.ndarray:
        """The people (indices, unit by unit) who gave at least one answer: the table's annotators,
        p0, p1, … in this order."""
        given = np.ones(self.right.shape, dtype=bool) if self.answered is None else self.answered
        return np.flatnonzero(given.reshape(self.theta.size, -1).any(axis=1))

    def table(self) -> RatingTable:
        """The people's answers as a `RatingTable` (annotators "p0"…, items "i0"…, units "u0"…);
        only the answers given, and only the people who gave one."""
        layout = self.layout
        units, people, items = layout.units, layout.people, layout.items
        u, p, i = np.meshgrid(np.arange(units), np.arange(people), np.arange(items), indexing="ij")
        given = np.ones(self.right.shape, dtype=bool) if self.answered is None else self.answered
        person = (u * people + p)[given]
        item = (u * items + i)[given]
        correct = self.right[given].astype(np.int8)
        present, person = np.unique(person, return_inverse=True)
        return RatingTable(
            annotators=tuple(f"p{k}" for k in present),
            items=tuple(f"i{k}" for k in range(layout.n_items)),
            labels=("right", "wrong"),
            units=tuple(f"u{k}" for k in range(units)),
            annotator=person.astype(np.int64),
            item=item.astype(np.int64),
            label=(1 - correct).astype(np.int64),
            correct=correct,
            unit=u[given].astype(np.int64),
        )

    def item_names(self) -> list[str]:
        return [f"i{k}" for k in range(self.layout.n_items)]

    def people_chance(self) -> np.ndarray:
        """units·people × items: each drawn person's chance on each item (their unit's only; NaN elsewhere)."""
        chance = special.expit(self.a[None, :] * (self.theta[:, None] - self.b[None, :]))
        chance[self.careless] = CHANCE
        return np.where(self.unit_of_person[:, None] == self.unit_of_item[None, :], chance, np.nan)

    def population_chance(self) -> np.ndarray:
        """Per item, the people population's chance of a right answer, E_θ σ(a(θ − b))."""
        return population_chance(self.b, self.a)

    def these_people_chance(self) -> np.ndarray:
        """Per item, the mean chance of its unit's drawn people."""
        return np.nanmean(self.people_chance(), axis=0)

    def majority_chance(self) -> np.ndarray:
        """Per item, P(more than half of its unit's people are right) / P(the count is not a tie):
        the chance a model needs on an item for McNemar's null against these people's majority."""
        chance = self.people_chance()
        out = np.empty(self.layout.n_items)
        for unit in range(self.layout.units):
            people = self.unit_of_person == unit
            cols = np.flatnonzero(self.unit_of_item == unit)
            pmf = _poisson_binomial(chance[np.ix_(people, cols)])  # items × (people + 1)
            n = int(people.sum())
            above = pmf[:, n // 2 + 1 :].sum(axis=1)
            below = pmf[:, : (n + 1) // 2].sum(axis=1)
            out[cols] = above / (above + below)
        return out


def _poisson_binomial(chance: np.ndarray) -> np.ndarray:
    """people × items chances → items × (people + 1) distribution of the count right."""
    n_people, n_items = chance.shape
    pmf = np.zeros((n_items, n_people + 1))
    pmf[:, 0] = 1.0
    for row in chance:
        shifted = np.zeros_like(pmf)
        shifted[:, 1:] = pmf[:, :-1]
        pmf = pmf * (1.0 - row)[:, None] + shifted * row[:, None]
    return pmf


def population_chance(b: np.ndarray, a: np.ndarray) -> np.ndarray:
    """E over θ ~ N(0, 1) of σ(a(θ − b)), per item (quadrature)."""
    return (special.expit(a[:, None] * (_NODES[None, :] - b[:, None])) * _WEIGHTS[None, :]).sum(axis=1)


def draw_items(layout: Layout, n: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    if layout.skewed_easy:
        b = layout.difficulty_mean - 1.5 * np.abs(rng.normal(0.0, layout.difficulty_sd, n))
    else:
        b = rng.normal(layout.difficulty_mean, layout.difficulty_sd, n)
    a = np.exp(rng.normal(0.0, LOG_A_SD, n)) if layout.irt == "2pl" else np.ones(n)
    return b / layout.people_sd, a * layout.people_sd


def draw(layout: Layout, rng: np.random.Generator) -> Draw:
    """One study at `layout`: its people, its items and every person's answers."""
    theta = rng.normal(0.0, 1.0, layout.n_people)
    b, a = draw_items(layout, layout.n_items, rng)
    unit_of_person = np.repeat(np.arange(layout.units), layout.people)
    unit_of_item = np.repeat(np.arange(layout.units), layout.items)
    chance = special.expit(
        a.reshape(layout.units, 1, layout.items)
        * (theta.reshape(layout.units, layout.people, 1) - b.reshape(layout.units, 1, layout.items))
    )
    screening = _screening(layout, rng) if layout.screened else None
    if screening is not None:
        # the careless answer at chance, whatever their θ (drawn all the same, and never used)
        chance[screening.kept_careless().reshape(layout.units, layout.people)] = CHANCE
    right = (rng.random(chance.shape) < chance).astype(np.int8)
    return Draw(layout, theta, b, a, right, unit_of_person, unit_of_item, _answered(layout, rng), screening=screening)


def _screening(layout: Layout, rng: np.random.Generator) -> Screening:
    """Each unit recruits people one at a time until `layout.people` pass the attention checks (a
    person failing `exclude_at` or more is excluded and their place offered again)."""
    unit, careless, failures, kept = [], [], [], []
    for number in range(layout.units):
        filled = 0
        while filled < layout.people:
            lazy = bool(rng.random() < layout.careless)
            failed = int(rng.binomial(layout.checks, 1.0 - (CHANCE if lazy else ATTENTIVE_PASS)))
            keep = not (layout.exclude_at and failed >= layout.exclude_at)
            filled += keep
            unit.append(number)
            careless.append(lazy)
            failures.append(failed)
            kept.append(keep)
    return Screening(np.array(unit), np.array(careless), np.array(failures), np.array(kept))


def _answered(layout: Layout, rng: np.random.Generator) -> np.ndarray | None:
    """Which answers a messy layout's people gave: a unit's own number of people, answers missing
    at random, and dropouts who stop after a uniform share of their items (taken in a random order,
    as a shuffled study shows them). None where every answer was given."""
    if layout.complete:
        return None
    shape = (layout.units, layout.people, layout.items)
    given = rng.random(shape) >= layout.missing
    if layout.unit_people:
        given &= (np.arange(layout.people)[None, :] < np.asarray(layout.unit_people)[:, None])[:, :, None]
    leaving = rng.random(shape[:2]) < layout.dropout
    kept = rng.integers(1, layout.items, size=shape[:2])  # at least one answer, never all
    order = rng.random(shape).argsort(axis=2).argsort(axis=2)  # each person's rank of each item
    given &= ~leaving[:, :, None] | (order < kept[:, :, None])
    return given


def model_scores(draw_: Draw, chance: np.ndarray, rng: np.random.Generator) -> dict[str, float]:
    """A model's 0/1 score per item, right with `chance` on each."""
    right = rng.random(chance.size) < chance
    return dict(zip(draw_.item_names(), right.astype(float).tolist()))


def model_chance(draw_: Draw, theta: float) -> np.ndarray:
    """Per item, the chance of a respondent of ability `theta` under the study's item parameters."""
    return special.expit(draw_.a * (theta - draw_.b))


def item_population_mean(
    layout: Layout, chance_of: Callable[[np.ndarray, np.ndarray], np.ndarray], n: int = 200_000, seed: int = 12345
) -> float:
    """E over the item population of chance_of(b, a) (a large fixed Monte Carlo sample: the item
    population has no closed form when skewed or 2PL; its error, ~1e-4, is far below the figures')."""
    b, a = draw_items(layout, n, np.random.default_rng(seed))
    return float(np.mean(chance_of(b, a)))


def population_gap(layout: Layout, theta_model: float | None) -> float:
    """The gap between a model of ability `theta_model` (None: a model with the population's chance
    on every item) and the people population, over the item population."""
    if theta_model is None:
        return 0.0
    return item_population_mean(layout, lambda b, a: special.expit(a * (theta_model - b)) - population_chance(b, a))


def these_people_gap(draw_: Draw, theta_model: float | None) -> float:
    """The gap between the model and the drawn people of each unit, over the item population
    (each unit's items weighted as the study weighs them: equally sized units, equal weights)."""
    layout = draw_.layout
    b, a = draw_items(layout, 20_000, np.random.default_rng(777))
    gaps = []
    for unit in range(layout.units):
        mine = draw_.unit_of_person == unit
        chance = special.expit(a[None, :] * (draw_.theta[mine][:, None] - b[None, :]))
        chance[draw_.careless[mine]] = CHANCE
        people = chance.mean(axis=0)
        model = population_chance(b, a) if theta_model is None else special.expit(a * (theta_model - b))
        gaps.append(float(np.mean(model - people)))
    return float(np.mean(gaps))


def population_percentile(theta_model: float) -> float:
    """The share (0–100) of the people population below a model of ability `theta_model`."""
    return 100.0 * float(stats.norm.cdf(theta_model))
