"""Model-likeness: answers that agree with one model's run far more than people agree with each other.

Pure: plain answers in, JSON-friendly figures out. Two signals:

- **Labels** (`model_likeness`): for each person and each model run, Cohen's kappa between the
  person's answers and the run's on the items both answered, set against two human figures: the
  study's person–person band (the kappas of every pair of people sharing at least
  `MIN_SHARED_ITEMS` items; its 5th, 50th and 95th percentiles) and the person's own mean kappa with
  the other people. Kappa rather than raw agreement: a model that says "yes" to most items agrees
  with anyone who does the same, and kappa discounts the agreement two such raters reach by chance.
  The rule (`LikenessRule`) flags a person whose kappa with a model is

  1. over at least `MIN_SHARED_ITEMS` items shared with the model,
  2. above the median of the person–person band (they agree with the model at least as well as a
     typical pair of people agree with each other), and
  3. at least `MARGIN` above their own mean kappa with the other people.

  Condition 3 carries the weight: an honest person agrees with people more than with a model that
  answers unlike people, and a model that answers like people (a strong one, close to the people's
  majority) is agreed with about as much as people are, by everyone, so a margin of 0.25 is not
  reached by being a careful annotator. Someone who copies a model inherits the model's departures
  from people: their kappa with it is high and with people low. The rule cannot tell a copier of a
  model that answers exactly like people from a careful person: there is nothing to tell apart.

- **Written answers** (`text_likeness`): per item, whether a person's text is closer (cosine of
  sentence vectors) to a model's output than to every other person's answer to the same item. The
  share of such items is reported per person and model; at least `MIN_TEXT_ITEMS` items with other
  people's answers and a share of `TEXT_SHARE` or more flag the person. With n other people on an
  item, an answer that is just one more person's would be closest to the model by chance about
  1/(n + 1) of the time.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from parity.stats.agreement import cohen_kappa, pairwise_kappa_table
from parity.stats.ratings import Rating
from parity.stats.results import JsonResult, finite_or_none

#: items a person and a model (or two people) must share before their kappa counts
MIN_SHARED_ITEMS = 20
#: how much more a person must agree with a model than with the other people (kappa points)
MARGIN = 0.25
#: person–person pairs needed for a band: fewer say little about how people agree
MIN_PAIRS = 5
#: the band's edges, as percentiles of the person–person kappas
BAND_PERCENTILES = (5.0, 50.0, 95.0)

#: written answers: items with a model output and another person's answer needed, and the share
#: of them on which the person's text is closest to the model's
MIN_TEXT_ITEMS = 5
TEXT_SHARE = 0.5


@dataclass(frozen=True)
class LikenessRule:
    min_shared_items: int = MIN_SHARED_ITEMS
    margin: float = MARGIN
    min_pairs: int = MIN_PAIRS


@dataclass(frozen=True)
class HumanBand(JsonResult):
    """How much people agree with each other: percentiles of the person–person kappas."""

    n_pairs: int
    low: float | None
    median: float | None
    high: float | None


@dataclass(frozen=True)
class ModelLikeness(JsonResult):
    """One person beside one model run, with the figures the rule read."""

    annotator: str
    model: str
    n_items: int
    #: the person's kappa with the model on the items both answered
    kappa_model: float | None
    #: the person's mean kappa with the other people (pairs sharing enough items), and how many
    kappa_people: float | None
    n_people: int
    band: HumanBand
    flagged: bool

    def evidence(self) -> str:
        """The figures in words, as the monitor, the admin and the exports show them."""
        return (
            f"kappa {_fmt(self.kappa_model)} with {self.model} over {self.n_items} items; "
            f"people with each other {_fmt(self.band.low)}–{_fmt(self.band.high)} "
            f"(median {_fmt(self.band.median)}); this person with the others {_fmt(self.kappa_people)}"
        )


def _fmt(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.2f}"


def human_band(kappas: Sequence[float] | np.ndarray) -> HumanBand:
    values = np.asarray([k for k in kappas if k is not None and np.isfinite(k)], dtype=float)
    if not values.size:
        return HumanBand(0, None, None, None)
    low, middle, high = np.percentile(values, BAND_PERCENTILES)
    return HumanBand(int(values.size), finite_or_none(low), finite_or_none(middle), finite_or_none(high))


def is_model_like(
    *, n_items: int, kappa_model: float | None, kappa_people: float | None, band: HumanBand, rule: LikenessRule
) -> bool:
    """The rule of the module doc, on the figures alone."""
    if kappa_model is None or kappa_people is None or band.median is None:
        return False
    return (
        n_items >= rule.min_shared_items
        and band.n_pairs >= rule.min_pairs
        and kappa_model > band.median
        and kappa_model - kappa_people >= rule.margin
    )


def model_likeness(
    people: Mapping[str, Mapping[str, str]],
    models: Mapping[str, Mapping[str, str]],
    *,
    rule: LikenessRule | None = None,
) -> list[ModelLikeness]:
    """Every person beside every model: `people` and `models` map a name to its answers by item
    (labels; an item left out is not answered). One row per person and model that share an item."""
    rule = rule or LikenessRule()
    ratings = [
        Rating(annotator, item, answer) for annotator, answers in people.items() for item, answer in answers.items()
    ]
    table = pairwise_kappa_table(ratings)
    enough = (table.n_items >= rule.min_shared_items) & ~np.isnan(table.kappa)
    band = human_band(table.kappa[enough])
    own: dict[str, list[float]] = {}
    for a, b, kappa in zip(table.first[enough].tolist(), table.second[enough].tolist(), table.kappa[enough].tolist()):
        own.setdefault(table.annotators[a], []).append(kappa)
        own.setdefault(table.annotators[b], []).append(kappa)
    rows = []
    for model, outputs in models.items():
        for annotator, answers in people.items():
            shared = [item for item in answers if item in outputs]
            if not shared:
                continue
            kappa = cohen_kappa([answers[item] for item in shared], [outputs[item] for item in shared])
            theirs = own.get(annotator, [])
            kappa_people = finite_or_none(float(np.mean(theirs))) if theirs else None
            rows.append(
                ModelLikeness(
                    annotator=annotator,
                    model=model,
                    n_items=len(shared),
                    kappa_model=kappa,
                    kappa_people=kappa_people,
                    n_people=len(theirs),
                    band=band,
                    flagged=is_model_like(
                        n_items=len(shared), kappa_model=kappa, kappa_people=kappa_people, band=band, rule=rule
                    ),
                )
            )
    return rows


@dataclass(frozen=True)
class TextLikeness(JsonResult):
    """One person's written answers beside one model's outputs."""

    annotator: str
    model: str
    #: items with the model's output and at least one other person's answer
    n_items: int
    #: of those, the items where the person's text is closer to the model's than to every other person's
    n_closest_to_model: int
    #: mean cosine similarity to the model's output, and to the nearest other person's answer
    similarity_model: float | None
    similarity_people: float | None
    flagged: bool

    @property
    def share(self) -> float | None:
        return self.n_closest_to_model / self.n_items if self.n_items else None

    def evidence(self) -> str:
        share = "n/a" if self.share is None else f"{self.share:.0%}"
        return (
            f"closer to {self.model} than to every other person on {self.n_closest_to_model} of {self.n_items} "
            f"items ({share}); mean similarity {_fmt(self.similarity_model)} to the model, "
            f"{_fmt(self.similarity_people)} to the nearest person"
        )


def text_likeness(
    people: Mapping[str, Mapping[str, str]],
    models: Mapping[str, Mapping[str, str]],
    vectors: Mapping[str, Sequence[float] | np.ndarray],
    *,
    min_items: int = MIN_TEXT_ITEMS,
    share: float = TEXT_SHARE,
) -> list[TextLikeness]:
    """Written answers beside models' outputs: `people` and `models` map a name to its texts by item,
    `vectors` each of those texts to its L2-normalised sentence vector (cosine is then a dot product)."""
    by_item: dict[str, dict[str, str]] = {}
    for annotator, texts in people.items():
        for item, text in texts.items():
            by_item.setdefault(item, {})[annotator] = text
    rows = []
    for model, outputs in models.items():
        for annotator, texts in people.items():
            closest = counted = 0
            to_model: list[float] = []
            to_people: list[float] = []
            for item, text in texts.items():
                others = [other for name, other in by_item[item].items() if name != annotator]
                if item not in outputs or not others:
                    continue
                mine = np.asarray(vectors[text], dtype=float)
                model_similarity = float(mine @ np.asarray(vectors[outputs[item]], dtype=float))
                nearest = max(float(mine @ np.asarray(vectors[other], dtype=float)) for other in others)
                counted += 1
                closest += model_similarity > nearest
                to_model.append(model_similarity)
                to_people.append(nearest)
            if not counted:
                continue
            rows.append(
                TextLikeness(
                    annotator=annotator,
                    model=model,
                    n_items=counted,
                    n_closest_to_model=closest,
                    similarity_model=finite_or_none(float(np.mean(to_model))),
                    similarity_people=finite_or_none(float(np.mean(to_people))),
                    flagged=counted >= min_items and closest / counted >= share,
                )
            )
    return rows
