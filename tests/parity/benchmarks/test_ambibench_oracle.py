from __future__ import annotations

import pytest

from parity.benchmarks.ambibench.oracle import OracleEpisode, oracle_accuracy, oracle_curve
from parity.benchmarks.ambibench.positions import PositionAnswer, position_curves

# subject–location construction; the true task happens to be `subject` (human → X).
SUBJECT_LOCATION = OracleEpisode(
    features=("subject", "location"),
    examples=[
        # 1: nothing seen, 4 hypotheses split 2–2 → 0.5. Survivors: subject (human→X),
        #    location (indoor→X).
        ({"subject": "human", "location": "indoor"}, "X"),
        # 2: both survivors say Y → 1.0.
        ({"subject": "animal", "location": "outdoor"}, "Y"),
        # 3: subject says X, location says Y → 0.5; only subject survives.
        ({"subject": "human", "location": "outdoor"}, "X"),
        # 4: subject says Y → 1.0.
        ({"subject": "animal", "location": "indoor"}, "Y"),
    ],
)
# religious–pronoun with booleans for one feature; the task is `religious` (religious → Y).
PRONOUN_RELIGIOUS = OracleEpisode(
    features=("pronoun", "religious"),
    examples=[
        ({"pronoun": "he", "religious": True}, "Y"),  # 0.5; survivors he→Y, religious→Y
        ({"pronoun": "she", "religious": True}, "Y"),  # split 1–1 → 0.5; religious survives
        ({"pronoun": "she", "religious": False}, "X"),  # 1.0
    ],
)


def test_the_oracle_is_chance_until_the_examples_disambiguate() -> None:
    assert oracle_accuracy(SUBJECT_LOCATION.features, SUBJECT_LOCATION.examples) == [
        0.5,
        1.0,
        0.5,
        1.0,
    ]
    assert oracle_accuracy(PRONOUN_RELIGIOUS.features, PRONOUN_RELIGIOUS.examples) == [
        0.5,
        0.5,
        1.0,
    ]


def test_the_oracle_curve_averages_episodes_per_position() -> None:
    curve = oracle_curve([SUBJECT_LOCATION, PRONOUN_RELIGIOUS])
    # (0.5 + 0.5)/2, (1 + 0.5)/2, (0.5 + 1)/2, then episode 1 alone.
    assert [(p.position, p.accuracy, p.n_episodes) for p in curve.points] == [
        (1, 0.5, 2),
        (2, 0.75, 2),
        (3, 0.75, 2),
        (4, 1.0, 1),
    ]
    assert all(p.ci_low is None for p in curve.points)


def test_the_oracle_rejects_episodes_outside_its_task_family() -> None:
    contradiction = [({"a": True, "b": True}, "X"), ({"a": True, "b": True}, "Y")]
    with pytest.raises(ValueError, match="position 2"):
        oracle_accuracy(("a", "b"), contradiction)
    with pytest.raises(ValueError, match="not binary"):
        oracle_accuracy(("a", "b"), [({"a": v, "b": True}, "X") for v in ("p", "q", "r")])
    with pytest.raises(ValueError, match="'X' or 'Y'"):
        oracle_accuracy(("a", "b"), [({"a": True, "b": True}, "Z")])


def _answer(episode: str, position: int, score: float, feature: str, fmt: str) -> PositionAnswer:
    return PositionAnswer(episode, position, score, salient_feature=feature, format=fmt)


ANSWERS = [
    _answer("e1", 1, 1, "subject", "arrow"),
    _answer("e1", 2, 1, "subject", "arrow"),
    _answer("e2", 1, 0, "subject", "qa"),
    _answer("e2", 2, 1, "subject", "qa"),
    _answer("e3", 1, 1, "location", "arrow"),
    _answer("e3", 2, 0, "location", "arrow"),
]


def test_position_curves_per_salient_feature_with_bootstrap_ci() -> None:
    location, subject = position_curves(ANSWERS, by=("salient_feature",))
    assert subject.group == {"salient_feature": "subject"}
    first, second = subject.points
    # Scores 1 and 0: resampled means 0 / 0.5 / 1 with probability ¼ / ½ / ¼ → CI [0, 1].
    assert (first.accuracy, first.n_episodes, first.ci_low, first.ci_high) == (0.5, 2, 0.0, 1.0)
    assert (second.accuracy, second.ci_low, second.ci_high) == (1.0, 1.0, 1.0)
    # One episode: no interval.
    assert location.points[0].ci_low is None


def test_position_curves_group_by_feature_and_format_or_not_at_all() -> None:
    groups = [c.group for c in position_curves(ANSWERS)]
    assert {"salient_feature": "subject", "format": "qa"} in groups and len(groups) == 3
    (overall,) = position_curves(ANSWERS, by=())
    assert [p.accuracy for p in overall.points] == pytest.approx([2 / 3, 2 / 3])


def test_position_curves_accept_mappings_and_reject_duplicates() -> None:
    rows = [
        {"episode": "e1", "position": 1, "score": 1.0},
        {"episode": "e1", "position": 1, "score": 0.0},
    ]
    with pytest.raises(ValueError):
        position_curves(rows, by=())


def test_invalid_answers_score_zero_and_are_counted_per_position_and_per_curve() -> None:
    rows = [
        PositionAnswer("e1", 1, 1.0),
        PositionAnswer("e2", 1, 1.0, valid=False),  # a score given with an invalid answer still counts 0
        PositionAnswer("e3", 1, 0.0, valid=False),
        PositionAnswer("e1", 2, 1.0),
        PositionAnswer("e2", 2, 0.0),
    ]
    (curve,) = position_curves(rows, by=())
    first, second = curve.points
    assert (first.accuracy, first.n_episodes, first.n_invalid) == (pytest.approx(1 / 3), 3, 2)
    assert (second.accuracy, second.n_invalid) == (0.5, 0)
    assert (curve.n_answers, curve.n_invalid) == (5, 2)
    assert curve.to_dict()["n_invalid"] == 2 and curve.to_dict()["points"][0]["n_invalid"] == 2
