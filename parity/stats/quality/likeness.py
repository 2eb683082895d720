"""Model-likeness: answers that agree with one model's run far more than people agree with each other.

Pure: plain answers in, JSON-friendly figures out. Two signals:

- **Labels** (`model_likeness`): for each person and each model run, the person's agreement with the
  run on the items both answered, set against two human figures: the study's person–person band
  (the agreement of every pair of people sharing at least `MIN_SHARED_ITEMS` items; its 5th, 50th
  and 95th percentiles) and the person's own mean agreement with the other people. Agreement is
  Gwet's AC1 (Gwet 2008): the share of equal answers corrected for chance like Cohen's kappa, but
  with a chance term, (1/(q−1)) Σ_k π_k(1 − π_k) over the q labels with π_k the two raters' mean
  share of label k, that stays small when the answers are skewed. Cohen's kappa cannot serve here:
  against a run that gives one answer to every item (the bundled smollm2 says "no" to all 600
  implicature items) every kappa is 0, the copier's as the careful person's. The rule
  (`LikenessRule`) flags a person whose AC1 with a model is

  1. over at least `MIN_SHARED_ITEMS` items shared with the model,
  2. above the median of the person–person band (they agree with the model at least as well as a
     typical pair of people agree with each other), and
  3. at least `MARGIN` above their own mean AC1 with the other people.

  Condition 3 carries the weight: an honest person agrees with people more than with a model that
  answers unlike people, and a model that answers like people (a strong one, close to the people's
  majority) is agreed with about as much as people are, by everyone, so a margin of 0.25 is not
  reached by being a careful annotator. Someone who copies a model inherits the model's departures
  from people: their agreement with it is high and with people low. The rule cannot tell a copier of
  a model that answers exactly like people from a careful person: there is nothing to tell apart.

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

from parity.stats.matrix import label_matrix
from parity.stats.ratings import Rating
from parity.stats.results import JsonResult, finite_or_none

#: items a person and a model (or two people) must share before their agreement counts
MIN_SHARED_ITEMS = 20
#: how much more a person must agree with a model than with the other people (AC1 points)
MARGIN = 0.25
#: person–person pairs needed for a band: fewer say little about how people agree
MIN_PAIRS = 5
#: the band's edges, as percentiles of the person–person agreements (AC1)
BAND_PERCENTILES = (5.0, 50.0, 95.0)

#: written answers: items with a model output and another person's answer needed, and the share
#: of them on which the person's text is closest to the model's
MIN_TEXT_ITEMS = 5
TEXT_SHARE = 0.5


def gwet_ac1(labels_a: Sequence[str], labels_b: Sequence[str], *, n_labels: int) -> float | None:
    """Gwet's AC1 of two aligned label sequences over a scale of `n_labels` labels (at least 2);
    None for no items."""
    if len(labels_a) != len(labels_b):
        raise ValueError("label sequences must be aligned (same length)")
    if not labels_a or n_labels < 2:
        return None
    n = len(labels_a)
    agree = sum(a == b for a, b in zip(labels_a, labels_b)) / n
    shares = [(labels_a.count(label) + labels_b.count(label)) / (2 * n) for label in set(labels_a) | set(labels_b)]
    chance = sum(p * (1 - p) for p in shares) / (n_labels - 1)
    return finite_or_none((agree - chance) / (1 - chance))


@dataclass(frozen=True)
class PairwiseAc1:
    """Gwet's AC1 of every pair of people sharing at least one item (pair k: ``first[k]``, ``second[k]``)."""

    annotators: tuple[str, ...]
    first: np.ndarray
    second: np.ndarray
    n_items: np.ndarray
    ac1: np.ndarray


def pairwise_ac1(people: Mapping[str, Mapping[str, str]], *, n_labels: int) -> PairwiseAc1:
    """Every pair at once, from the annotators × items label matrix: per label, X_l X_lᵀ counts the
    items where both gave it and X_l Mᵀ those where the first gave it and the second answered
    (M: answered at all); their sums are the agreements and the shared items."""
    matrix = label_matrix(
        [Rating(annotator, item, answer) for annotator, answers in people.items() for item, answer in answers.items()]
    )
    first, second = np.triu_indices(len(matrix.annotators), k=1)
    answered = matrix.answered.astype(np.float64)
    agree = np.zeros(first.size)
    said = [matrix.one_hot(label) for label in range(len(matrix.labels))]
    own = [(x @ answered.T)[first, second] for x in said]
    other = [(x @ answered.T)[second, first] for x in said]
    for x in said:
        agree += (x @ x.T)[first, second]
    shared = sum(own, np.zeros(first.size))
    with np.errstate(divide="ignore", invalid="ignore"):
        chance = sum(((a + b) / (2 * shared)) * (1 - (a + b) / (2 * shared)) for a, b in zip(own, other))
        chance = np.asarray(chance, dtype=float) / max(n_labels - 1, 1)
        ac1 = (agree / shared - chance) / (1 - chance)
    kept = shared > 0
    return PairwiseAc1(
        annotators=matrix.annotators,
        first=first[kept],
        second=second[kept],
        n_items=shared[kept].astype(np.int64),
        ac1=np.where(np.isfinite(ac1[kept]), ac1[kept], np.nan),
    )


@dataclass(frozen=True)
class LikenessRule:
    min_shared_items: int = MIN_SHARED_ITEMS
    margin: float = MARGIN
    min_pairs: int = MIN_PAIRS


@dataclass(frozen=True)
class HumanBand(JsonResult):
    """How much people agree with each other: percentiles of the person–person agreements (AC1)."""

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
    #: the share of those items given the model's answer
    same_answers: float
    #: the person's agreement (AC1) with the model on the items both answered
    agreement_model: float | None
    #: the person's mean AC1 with the other people (pairs sharing enough items), and how many
    agreement_people: float | None
    n_people: int
    band: HumanBand
    flagged: bool

    def evidence(self) -> str:
        """The figures in words, as the monitor, the admin and the exports show them."""
        return (
            f"AC1 {_fmt(self.agreement_model)} with {self.model} over {self.n_items} items "
            f"({self.same_answers:.0%} the same answer); "
            f"people with each other {_fmt(self.band.low)}–{_fmt(self.band.high)} "
            f"(median {_fmt(self.band.median)}); this person with the others {_fmt(self.agreement_people)}"
        )


def _fmt(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.2f}"


def human_band(agreements: Sequence[float] | np.ndarray) -> HumanBand:
    values = np.asarray([k for k in agreements if k is not None and np.isfinite(k)], dtype=float)
    if not values.size:
        return HumanBand(0, None, None, None)
    low, middle, high = np.percentile(values, BAND_PERCENTILES)
    return HumanBand(int(values.size), finite_or_none(low), finite_or_none(middle), finite_or_none(high))


def is_model_like(
    *, n_items: int, agreement_model: float | None, agreement_people: float | None, band: HumanBand, rule: LikenessRule
) -> bool:
    """The rule of the module doc, on the figures alone."""
    if agreement_model is None or agreement_people is None or band.median is None:
        return False
    return (
        n_items >= rule.min_shared_items
        and band.n_pairs >= rule.min_pairs
        and agreement_model > band.median
        and agreement_model - agreement_people >= rule.margin
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
    labels = {a for answers in (*people.values(), *models.values()) for a in answers.values()}
    n_labels = max(len(labels), 2)
    table = pairwise_ac1(people, n_labels=n_labels)
    enough = (table.n_items >= rule.min_shared_items) & ~np.isnan(table.ac1)
    band = human_band(table.ac1[enough])
    own: dict[str, list[float]] = {}
    for a, b, value in zip(table.first[enough].tolist(), table.second[enough].tolist(), table.ac1[enough].tolist()):
        own.setdefault(table.annotators[a], []).append(value)
        own.setdefault(table.annotators[b], []).append(value)
    rows = []
    for model, outputs in models.items():
        for annotator, answers in people.items():
            shared = [item for item in answers if item in outputs]
            if not shared:
                continue
            mine, its = [answers[item] for item in shared], [outputs[item] for item in shared]
            agreement = gwet_ac1(mine, its, n_labels=n_labels)
            theirs = own.get(annotator, [])
            with_people = finite_or_none(float(np.mean(theirs))) if theirs else None
            rows.append(
                ModelLikeness(
                    annotator=annotator,
                    model=model,
                    n_items=len(shared),
                    same_answers=sum(a == b for a, b in zip(mine, its)) / len(shared),
                    agreement_model=agreement,
                    agreement_people=with_people,
                    n_people=len(theirs),
                    band=band,
                    flagged=is_model_like(
                        n_items=len(shared),
                        agreement_model=agreement,
                        agreement_people=with_people,
                        band=band,
                        rule=rule,
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
