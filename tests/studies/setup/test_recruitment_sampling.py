"""Who may take part and which items they see: the prescreening on the new-study form, the item sampling
applied where the units are built (the same seed, the same items), and the people refused for an
earlier study of the group, counted once each."""

from __future__ import annotations

from collections import Counter
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from annotation.models import Item
from parity.sampling import allocation
from studies.errors import StudyError
from studies.models import Study, UnitItem
from studies.participants.entry import Refusal, participant_enter
from studies.preregistration.document import preregistration_export
from studies.setup.drafts import study_draft_update
from tests.factories import pid, small_study
from tests.studies.workflow.helpers import create

pytestmark = pytest.mark.django_db


def _keys(study: Study) -> list[str]:
    return list(
        UnitItem.objects.filter(unit__study=study, item__is_attention_check=False)
        .order_by("unit__position", "order")
        .values_list("item__key", flat=True)
    )


def test_a_stratified_sample_is_drawn_from_the_seed_in_the_categories_shares(implicature):
    fields = {"units": 2, "unit_size": 6, "item_sampling": "stratified", "sample_size": 12, "sample_seed": 99}
    first, second = small_study("first", **fields), small_study("second", **fields)
    assert len(_keys(first)) == 12 and _keys(first) == _keys(second)
    assert (first.item_sampling, first.sample_size, first.sample_seed) == ("stratified", 12, 99)
    pool = Item.objects.filter(benchmark="implicature", split="test", is_attention_check=False)
    shares = Counter(str(item.meta.get("type")) for item in pool)
    drawn = Counter(str(item.meta.get("type")) for item in Item.objects.filter(key__in=_keys(first)))
    assert drawn == {key: n for key, n in allocation(dict(shares), 12).items() if n}
    other = small_study("other seed", **{**fields, "sample_seed": 100})
    assert set(_keys(other)) != set(_keys(first))


def test_all_items_stays_the_files_order_and_a_draft_is_drawn_again_when_its_seed_changes(implicature):
    plain = small_study("plain", units=1, unit_size=4)
    assert plain.item_sampling == "all"
    file_order = sorted(
        Item.objects.filter(benchmark="implicature", split="test", is_attention_check=False),
        key=lambda item: (int(item.meta.get("row", 0)), item.key),
    )
    assert _keys(plain) == [item.key for item in file_order[:4]]
    draft = small_study(
        "draft", units=1, unit_size=4, status=Study.Status.DRAFT, item_sampling="random", sample_size=4, sample_seed=1
    )
    before = _keys(draft)
    study_draft_update(study=draft, sample_seed=2)
    draft.refresh_from_db()
    assert draft.sample_seed == 2 and _keys(draft) != before and len(_keys(draft)) == 4


def test_a_sample_larger_than_the_pool_or_without_a_size_is_refused(implicature):
    with pytest.raises(StudyError, match="only 600 are there to draw from"):
        small_study("too many", item_sampling="random", sample_size=601, sample_seed=1)
    with pytest.raises(StudyError, match="number of items"):
        small_study("no size", item_sampling="random", sample_seed=1)


def test_the_form_stores_the_prescreening_and_the_sampling(researcher_client, implicature):
    page = create(
        researcher_client,
        "implicature",
        name="screened",
        units=2,
        unit_size=5,
        age_min=25,
        age_max=60,
        sex="0",
        first_languages="19",
        countries="1, 2",
        approval_rate_min=95,
        exclude_earlier=True,
        item_sampling="stratified",
        sample_size=10,
        sample_seed=1234,
    )
    assert page.status_code == 302, page.context["form"].errors
    study = Study.objects.get(name="screened")
    assert study.prolific_filters == {
        "age_min": 25,
        "age_max": 60,
        "sex": ["0"],
        "first_languages": ["19"],
        "countries": ["1", "2"],
        "approval_rate_min": 95,
        "exclude_earlier": True,
    }
    assert (study.item_sampling, study.sample_size, study.sample_seed) == ("stratified", 10, 1234)
    assert len(_keys(study)) == 10


def test_the_form_refuses_a_reversed_age_range_and_a_subset_without_its_size(researcher_client, implicature):
    page = create(
        researcher_client,
        "implicature",
        name="bad",
        units=2,
        unit_size=5,
        age_min=60,
        age_max=25,
        item_sampling="random",
    )
    form = page.context["form"]
    assert form.errors["age_max"] == ["The oldest age must be at least the youngest."]
    assert form.errors["sample_size"] == ["Give the number of items to draw."]
    assert not Study.objects.filter(name="bad").exists()


def test_a_new_study_gets_a_seed_drawn_when_none_is_typed(researcher_client, implicature):
    page = create(researcher_client, "implicature", name="seeded", units=2, unit_size=5, sample_seed="")
    assert page.status_code == 302
    assert Study.objects.get(name="seeded").sample_seed is not None


def test_a_person_refused_for_an_earlier_study_of_the_group_is_counted_once(implicature):
    earlier = small_study("earlier", units=1, unit_size=2, group="wave")
    later = small_study("later", units=1, unit_size=2, group="wave")
    participant_enter(study=earlier, pid=pid(1))
    for _ in range(3):  # coming back does not count again
        assert participant_enter(study=later, pid=pid(1)).refusal is Refusal.OTHER_STUDY_IN_GROUP
    participant_enter(study=earlier, pid=pid(2))
    assert participant_enter(study=later, pid=pid(2)).refusal is Refusal.OTHER_STUDY_IN_GROUP
    later.refresh_from_db()
    assert len(later.refused_earlier) == 2
    assert pid(1) not in str(later.refused_earlier)  # digests, never the IDs


def test_the_command_takes_the_prescreening_and_the_sampling(implicature):
    call_command(
        "create_study",
        "--benchmark=implicature",
        "--name=by command",
        "--units=2",
        "--unit-size=4",
        "--age-min=21",
        "--fluent-languages=19, 40",
        "--exclude-earlier",
        "--sample=random",
        "--sample-size=8",
        "--seed=5",
        stdout=StringIO(),
    )
    study = Study.objects.get(name="by command")
    assert study.prolific_filters == {"age_min": 21, "fluent_languages": ["19", "40"], "exclude_earlier": True}
    assert (study.item_sampling, study.sample_size, study.sample_seed, len(_keys(study))) == ("random", 8, 5, 8)
    with pytest.raises(CommandError, match="approval"):
        call_command(
            "create_study", "--benchmark=implicature", "--name=bad rate", "--approval-rate-min=120", stdout=StringIO()
        )


def test_the_frozen_preregistration_states_the_sampling_and_the_prescreening(implicature):
    study = small_study(
        "preregistered sample",
        units=2,
        unit_size=5,
        item_sampling="stratified",
        sample_size=10,
        sample_seed=42,
        prolific_filters={"approval_rate_min": 99},
    )  # created live: frozen at once
    exported = preregistration_export(study)
    document = exported["document"]
    assert document["items"]["sampling"] == {"method": "stratified", "size": 10, "seed": 42, "pool": 600}
    assert document["recruitment"]["prescreening"] == {"approval_rate_min": 99}
    assert "10 of the 600 items, drawn at random stratified by category with seed 42" in exported["markdown"]
    assert '`{"approval_rate_min": 99}`' in exported["markdown"]
