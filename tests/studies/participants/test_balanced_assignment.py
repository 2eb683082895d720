"""Assignment balanced over a unit's category (AmbiBench: one episode per participant, balanced over
the six salient features), concurrency-safe on PostgreSQL."""

from __future__ import annotations

from collections import Counter

import pytest
from django.db.models import F

from parity.benchmarks.ambibench import FEATURES
from studies.models import Participant, Unit
from studies.participants.decisions import participants_mark_returned
from studies.participants.entry import participant_enter
from tests.annotation.helpers import ambibench_study, import_ambibench
from tests.factories import arrive_at_once, pid

pytestmark = pytest.mark.django_db


def _group_positions_by_feature(study) -> None:
    """Put each feature's units next to each other, so that filling by position alone would not balance."""
    units = sorted(Unit.objects.filter(study=study), key=lambda unit: (FEATURES.index(unit.category), unit.position))
    Unit.objects.filter(study=study).update(position=F("position") + 1000)  # clear of the unique positions
    for position, unit in enumerate(units, start=1):
        Unit.objects.filter(pk=unit.pk).update(position=position)


def _held_per_feature(study) -> Counter:
    return Counter(Participant.objects.filter(study=study).holding_slot().values_list("unit__category", flat=True))


def test_twelve_participants_on_a_six_feature_design_end_with_two_per_feature(db):
    import_ambibench()
    study = ambibench_study("balanced", per_feature=3)
    assert Counter(study.units.values_list("category", flat=True)) == {feature: 3 for feature in FEATURES}
    _group_positions_by_feature(study)
    entered = [participant_enter(study=study, pid=pid(n)).participant for n in range(12)]
    assert all(entered) and len({p.unit_id for p in entered}) == 12, "one episode per participant"
    assert _held_per_feature(study) == {feature: 2 for feature in FEATURES}


def test_a_returned_place_is_refilled_in_the_feature_that_lost_it(db):
    import_ambibench()
    study = ambibench_study("refill", per_feature=3)
    _group_positions_by_feature(study)
    entered = [participant_enter(study=study, pid=pid(n)).participant for n in range(12)]
    leaving = [p for p in entered if p.unit.category == "negation"]
    participants_mark_returned(participant_ids=[p.pk for p in leaving])
    assert _held_per_feature(study)["negation"] == 0
    refill = [participant_enter(study=study, pid=pid(100 + n)).participant for n in range(2)]
    assert {p.unit.category for p in refill} == {"negation"}
    assert _held_per_feature(study) == {feature: 2 for feature in FEATURES}


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_twelve_participants_arriving_at_once_end_two_per_feature(postgres):
    import_ambibench()
    study = ambibench_study("crowd balanced", per_feature=3)
    _group_positions_by_feature(study)
    errors = arrive_at_once(study, [pid(2000 + n) for n in range(12)])
    assert not errors
    assert _held_per_feature(study) == {feature: 2 for feature in FEATURES}
    assert Participant.objects.filter(study=study).values("unit").distinct().count() == 12
