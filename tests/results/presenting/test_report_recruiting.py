"""The report states who could take part and which items they saw: the Prolific prescreening, the people
refused for an earlier study of the group, the items drawn and their seed, and how many said they had
seen the items before; every number a figure of `study_results --json`."""

from __future__ import annotations

import pytest

from prolific.models import ProlificStudy
from results.computing.tree import StudyResults
from results.presenting.report import build_report
from results.presenting.report.figures import plain
from studies.participants.entry import participant_enter
from tests.factories import Bot, pid, small_study
from tests.results.presenting.test_study_report import _assert_figures_are_the_json

pytestmark = pytest.mark.django_db


def test_the_methods_state_the_prescreening_the_refusals_the_sample_and_the_items_seen_before(implicature):
    earlier = small_study("wave one", units=1, unit_size=3, group="waves")
    study = small_study(
        "wave two",
        units=2,
        unit_size=5,
        per_unit=3,
        attention_checks=0,
        exclude_at=0,
        group="waves",
        item_sampling="stratified",
        sample_size=10,
        sample_seed=1234,
        closing_questions=["seen_before"],
        prolific_filters={"age_min": 18, "age_max": 40, "countries": ["1", "2"], "approval_rate_min": 95},
    )
    # the prescreening applies through the study's Prolific study
    ProlificStudy.objects.create(study=study, prolific_id="6a2c", places=12)
    participant_enter(study=earlier, pid=pid(9))
    participant_enter(study=study, pid=pid(9))  # refused: took wave one
    for n, seen in ((1, "yes"), (2, "no"), (3, "no")):
        bot = Bot(study, pid(n))
        bot.complete()
        bot.client.post(f"/s/{study.link}/closing/", {"seen_before": seen})
    Bot(study, pid(4)).complete()  # left the question unanswered

    results = _assert_figures_are_the_json(study.name)
    recruiting = results["methods"]["recruiting"]
    assert recruiting["refused_earlier_participation"] == 1
    assert recruiting["items"] == {"method": "stratified", "drawn": 10, "available": 600, "seed": 1234}
    assert recruiting["seen_before"] == {"yes": 1, "no": 2}
    text = " ".join(plain(parts) for parts in build_report(StudyResults.from_json(results)).paragraphs)
    assert (
        "Prolific's prescreening admitted only participants aged 18 to 40, with country of residence "
        "(Prolific's choice ids) 1 or 2 and with an approval rate of at least 95%." in text
    )
    assert "1 person was refused at entry for having taken part in an earlier study of the same group." in text
    assert "The units hold 10 of the 600 items, drawn at random stratified by category with seed 1234." in text
    assert "Asked whether they had seen any of the items before the study, 1 answered yes and 2 no." in text


def test_a_study_of_all_items_without_prescreening_adds_no_sentence(implicature):
    study = small_study("plain report", units=1, unit_size=3, per_unit=2, attention_checks=0, exclude_at=0)
    results = _assert_figures_are_the_json(study.name)
    assert results["methods"]["recruiting"]["items"]["method"] == "all"
    text = " ".join(plain(parts) for parts in build_report(StudyResults.from_json(results)).paragraphs)
    assert "prescreening" not in text and "The units hold" not in text and "refused at entry" not in text


def test_a_sample_with_one_of_each_category_first_says_so(implicature):
    study = small_study(
        "one of each",
        units=1,
        unit_size=10,
        per_unit=2,
        attention_checks=0,
        exclude_at=0,
        item_sampling="stratified_each",
        sample_size=10,
        sample_seed=7,
    )
    Bot(study, pid(1)).complete()
    results = _assert_figures_are_the_json(study.name)
    items = results["methods"]["recruiting"]["items"]
    assert items == {"method": "stratified_each", "drawn": 10, "available": 600, "seed": 7}
    text = " ".join(plain(parts) for parts in build_report(StudyResults.from_json(results)).paragraphs)
    assert (
        f"The units hold {items['drawn']} of the {items['available']} items, drawn at random stratified by category, "
        f"at least one of each category, with seed {items['seed']}." in text
    )
    # every one of implicature's seven types is among the items drawn
    types = {unit_item.item.meta["type"] for unit_item in study.units.get().unit_items.select_related("item")}
    assert len(types) == 7
