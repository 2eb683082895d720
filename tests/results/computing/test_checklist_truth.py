"""The checklist's answers held to the study's records, entry by entry where an answer used to say
something the records do not: the item order against the study's shuffle setting, the gap's
interval against the method that computed it, the dataset's size against the study's item set, the
attrition against every person who entered."""

from __future__ import annotations

import pytest

from parity.reporting.checklist import Status
from results.computing.assemble import study_results_tree
from results.loading.selectors import load_study_data
from results.pipeline import study_checklist
from results.presenting.report import build_report
from results.presenting.report.figures import plain
from studies.models import Study

pytestmark = pytest.mark.django_db


def _answers(pk: int):
    study = Study.objects.get(pk=pk)
    results = study_results_tree(load_study_data(study), n_boot=200)
    return study, results, {answer.entry.id: answer for answer in study_checklist(study, results)}


def _methods(results, checklist=None) -> str:
    return " ".join(plain(parts) for parts in build_report(results, checklist or []).methods)


@pytest.mark.parametrize("shuffle", [False, True])
def test_the_item_order_follows_the_studys_shuffle_setting_in_the_methods_words(pilot, shuffle) -> None:
    study = Study.objects.get(pk=pilot.study_id)
    before = dict(study.design)
    Study.objects.filter(pk=study.pk).update(design={**before, "shuffle_items": shuffle})
    try:
        study, results, answers = _answers(pilot.study_id)
    finally:
        Study.objects.filter(pk=study.pk).update(design=before)
    setting = next(setting for setting in results.methods.design.settings if setting.key == "shuffle_items")
    assert setting.value is shuffle
    said = f"“{setting.label}” was {'on' if shuffle else 'off'}"
    assert said in _methods(results)
    answer = answers["3.1.1"]
    assert answer.status is Status.ANSWERED
    assert answer.text.startswith(f"{'Yes' if shuffle else 'No'}: {said}; ")
    assert ("shuffled" in answer.text) is shuffle
    # the study's attention checks are placed at random either way, and the answer says so
    assert results.methods.attention.checks_per_participant == 2
    assert answer.text.endswith("the attention checks were placed at random positions")


def test_the_gap_interval_is_described_by_the_method_that_computed_it_wherever_it_is_printed(pilot) -> None:
    from parity.reporting.methods import CROSSED, GAP_CI, HUMAN_CI
    from parity.stats.crossed import METHOD as CROSSED_TEST
    from results.presenting.tables import comparison_table

    study, results, answers = _answers(pilot.study_id)
    statistics = results.methods.statistics
    assert statistics.gap_ci_method == CROSSED
    # the test the figures come from is the crossed design's, and so is every description of it
    assert {row.test.method for row in results.paired} == {CROSSED_TEST}
    words = GAP_CI[CROSSED]
    assert f"from {words}." in _methods(results)
    notes = " ".join(comparison_table(results).notes)
    assert f"its CI is about people like these on items like these, from {words}" in notes
    assert "bootstrap" not in notes.split("The gap is Model minus Humans")[1].split(".")[0]
    # 4.2 names every interval in the methods' words, no identifier
    assert answers["4.2"].text == (
        f"Yes: 95% CIs: human accuracy by {HUMAN_CI[statistics.human_ci_method]}; a model's accuracy by "
        f"percentile bootstrap over items ({statistics.n_boot} resamples); a model's gap to the humans from {words}"
    )
    assert statistics.human_ci_method not in answers["4.2"].text


def test_the_dataset_is_the_studys_item_set_and_the_published_study_answered_all_of_it(baseline, pilot) -> None:
    from annotation.models import Item

    implicature = Item.objects.filter(benchmark="implicature", is_attention_check=False)
    test_set = implicature.filter(split="test").count()
    assert test_set == 600 and implicature.filter(split="dev").count() == 118  # the dev pool is held too
    study, results, answers = _answers(baseline.study_id)
    assert study.design["split"] == "test" and results.human.n_items == test_set
    assert answers["0.8"].text == (
        "600 items: the test set of Conversational implicature (Ruis et al.), attention checks aside"
    )
    limitations = plain(build_report(results, list(answers.values())).limitations)
    assert "People answered" not in limitations and "whole dataset" not in limitations
    # the figure is the record the answer rests on
    from results.computing.checklist.answering import DATASET_ITEMS

    assert answers["0.8"].record(DATASET_ITEMS) == test_set
    # a native study on 10 of the test set's items says so, with the figure 0.8 rests on
    study, results, answers = _answers(pilot.study_id)
    assert answers["0.8"].record(DATASET_ITEMS) == test_set and results.human.n_items == 10
    limitations = plain(build_report(results, list(answers.values())).limitations)
    assert f"People answered 10 of the dataset's 600 items ({answers['0.8'].text}); " in limitations


def test_attrition_accounts_for_everyone_who_entered_and_the_screened_out_are_not_said_to_be_paid(implicature) -> None:
    from studies.models import Participant
    from tests.results.computing.test_training_results import _study_with_training

    study = _study_with_training()
    statuses = list(Participant.objects.filter(study=study).values_list("status", flat=True))
    assert sorted(statuses) == ["completed", "completed", "screened_out"]
    study, results, answers = _answers(study.pk)
    # 5.1.5: the categories add up to everyone who entered
    text = answers["5.1.5"].text
    assert text == (
        "1 of 3 who entered did not complete: 2 completed, 1 screened out by the comprehension check (asked to return "
        "the study), 0 declined consent, 0 returned the study, 0 timed out, 0 still in progress"
    )
    parts = text.split(": ", 1)[1].split(", ")
    assert (
        sum(int(part.split(" ", 1)[0]) for part in parts)
        == len(statuses)
        == answers["5.1.5"].record("participants.entered")
    )
    people = results.methods.participants
    assert (people.entered, people.completed, people.screened_out) == (3, 2, 1)
    # the methods' first sentence accounts for them too
    first = plain(build_report(results, list(answers.values())).methods[0])
    assert "3 people entered: 2 completed it and 1 failed the comprehension check. " in first
    # 2.6.2 and 2.6.2.1: the training is within the reward only for those who went on to the items
    assert answers["2.6.2"].text == (
        "Partial: within the study's reward for those who went on to the items; 1 person screened out by the "
        "comprehension check was asked to return the study, so not paid its reward for the training"
    )
    assert answers["2.6.2.1"].text.endswith(
        "; 1 person screened out by the comprehension check was asked to return "
        "the study, so not paid its reward for the training"
    )


def test_availability_is_not_asserted_without_data_nor_a_public_copy(implicature) -> None:
    from tests.factories import small_study

    empty = small_study("nobody yet", units=1, unit_size=3, per_unit=2)
    study, results, answers = _answers(empty.pk)
    assert results.methods.participants.entered == 0 and results.human.n_answers == 0
    for entry_id in ("5.2", "5.2.1", "5.3", "5.4"):
        assert not answers[entry_id].text.startswith("Yes"), answers[entry_id]
    assert answers["5.2"].text == "No: no participant has answered, so there are no human data to make available"
    assert answers["5.2.1"].status is Status.NOT_APPLICABLE
    assert answers["5.2.2"].text == "There are no human data yet: no participant has answered"
    assert answers["5.4"].text == "No: there is no analysis yet: no participant has answered"
    assert answers["5.3"].text.startswith("Partial: items, consent, instructions are in the replication bundle; ")


def test_a_plan_frozen_in_parity_is_no_public_registration_until_the_researcher_enters_one(pilot) -> None:
    from parity.reporting.checklist import COMPUTED, ENTERED
    from studies.models import Preregistration
    from studies.setup.checklist import study_checklist_notes_set

    plan = Preregistration.objects.get(study_id=pilot.study_id)
    frozen = (
        f"the plan was frozen in Parity at launch on {plan.frozen_at.date().isoformat()} (SHA-256 {plan.sha256[:12]}…)"
    )
    study, results, answers = _answers(pilot.study_id)
    assert answers["1.10"].source == COMPUTED
    assert answers["1.10"].text == (
        f"Partial: {frozen}; that is not a public registration, and none was entered (its address is this entry's note)"
    )
    # the checklist page offers a box for the public address of each of these entries
    from tests.personas import personas_for, signed_in

    owner = signed_in(personas_for(study, prefix="public-").owner)
    page = owner.get(f"/studies/{study.pk}/checklist/").content.decode()
    assert all(f'name="entry_{entry}"' in page for entry in ("1_10", "5_2", "5_3", "5_4"))
    study_checklist_notes_set(study=study, notes={"1.10": "https://osf.io/abcd", "5.2": "https://osf.io/abcd/files"})
    study, results, answers = _answers(pilot.study_id)
    assert answers["1.10"].source == ENTERED and answers["1.10"].text == f"Yes: https://osf.io/abcd ({frozen})"
    assert answers["1.10"].record("checklist note 1.10") == "https://osf.io/abcd"
    assert (
        answers["5.2"].text
        == "Yes: https://osf.io/abcd/files (the replication bundle holds every answer, by pseudonym)"
    )
    # the people who completed, the excluded among them, all accounted for
    assert answers["5.1.5"].text.endswith("; 1 of the completed was excluded")


def test_a_prescreening_without_a_prolific_study_is_not_said_to_have_applied(pilot) -> None:
    Study.objects.filter(pk=pilot.study_id).update(
        prolific_filters={"age_min": 18, "age_max": 65, "exclude_earlier": True}
    )
    study, results, answers = _answers(pilot.study_id)
    assert results.methods.platform == "link" and results.methods.recruiting.prescreening.is_set
    assert answers["2.3"].text == "No"
    assert answers["2.3.1"].status is Status.NOT_APPLICABLE and answers["2.3.2"].status is Status.NOT_APPLICABLE
    assert answers["2.5"].text == "No"
    assert "Prolific" not in answers["2.2"].text.split(";")[0]
    methods = _methods(results)
    assert "Prolific's prescreening admitted" not in methods
    assert (
        "A Prolific prescreening was set (participants aged 18 to 65 and who had not taken part in the researchers' "
        "earlier studies on Prolific), but no Prolific study was recorded, so it was not applied. " in methods
    )


def test_the_power_analysis_states_alpha_sidedness_both_directions_and_the_analysed_n(pilot) -> None:
    from parity.stats.power import VarianceComponents, power_analysis

    study, results, answers = _answers(pilot.study_id)
    power = results.methods.reporting.power
    assert (power.people, power.alpha, power.power, power.detectable_above) == (4, 0.05, 0.8, None)
    below = 100 * abs(power.detectable_below)
    planned = (
        "With 4 people planned (in 2 units of 5 items each), the two-sided test of the gap at α 0.05 detects with "
        f"80% power no gap for a model above the people and a gap of {below:.1f} points for a model below the people"
    )
    assert answers["1.8.1"].text == planned and "%" not in answers["1.8.1"].text.split("power")[1]
    assert answers["1.8"].text == "Yes: before launch, for 4 people in 2 units of 5 items each"
    # planned for 6, analysed 4: the detectable gaps at 4 are given beside the plan's
    Study.objects.filter(pk=study.pk).update(power_analysis={**study.power_analysis, "people": 6})
    study, results, answers = _answers(pilot.study_id)
    parts = power.source.components
    at_four = power_analysis(
        people=4, items_per_person=5, units=2, components=VarianceComponents(**parts.to_dict()), power=0.8, alpha=0.05
    )
    sides = " and ".join(
        f"{'no gap' if gap is None else f'a gap of {100 * abs(gap):.1f} points'} for a model {side} the people"
        for gap, side in ((at_four.detectable_above, "above"), (at_four.detectable_below, "below"))
    )
    assert answers["1.8.1"].text.endswith(f"; 4 people were analysed, not 6: at 4 the test detects {sides}")
    assert answers["1.8.1"].record("human.n_annotators") == 4


def test_no_interval_is_printed_for_a_category_of_fewer_than_five_items(pilot) -> None:
    from results.presenting.report import render_report
    from results.presenting.tables import category_table

    study, results, answers = _answers(pilot.study_id)
    rows = {row.category: row for row in results.breakdowns.by_category.rows}
    # the pilot's implicature types: 1, 3, 1 and 5 items; the JSON keeps every interval
    assert {name: row.human.n_items for name, row in rows.items()} == {
        "Generalised": 1,
        "Idiom": 3,
        "Other": 1,
        "Particularised": 5,
    }
    assert rows["Other"].human.ci95 == [1.0, 1.0]
    table = category_table(results)
    shown = {row[0]: row[2] for row in table.rows}
    assert shown["Generalised"] == "none: 1 item" and shown["Other"] == "none: 1 item"
    assert shown["Idiom"] == "none: 3 items"
    low, high = rows["Particularised"].human.ci95
    assert shown["Particularised"] == f"[{100 * low:.1f}, {100 * high:.1f}]"
    assert "No CI is given for a category of fewer than 5 items" in " ".join(table.notes)
    from results.presenting.tables import FEW_ITEMS

    assert FEW_ITEMS == 5
    markdown = render_report(results, "markdown", list(answers.values()))
    assert "[100.0, 100.0]" not in markdown and "none: 1 item" in markdown


@pytest.mark.parametrize("study", ["pilot", "baseline"])
def test_every_rendered_answer_is_in_the_checklists_vocabulary_with_a_pointer(study, request) -> None:
    import re

    from parity.reporting.checklist import checklist_markdown
    from results.presenting.report import render_report

    built = request.getfixturevalue(study)
    study, results, answers = _answers(built.study_id)
    for answer in answers.values():
        shown = answer.shown_text
        if answer.status is Status.NOT_APPLICABLE:
            assert shown == "N/A" and answer.source.startswith("not applicable: ")
        elif answer.status is Status.NOT_ANSWERED:
            assert shown == "—"
        else:
            assert re.match(r"(Yes|Partial|No)(:| —| \(|,|;|$)", shown), shown
            assert answer.text in shown
            if answer.entry.section != "Paper information":
                assert shown.endswith(f" (see {answer.pointer})") and answer.pointer, shown
    # a figure without a word of its own reports what the entry asks: Yes, the figure after it
    assert answers["0.8"].shown_text == f"Yes — {answers['0.8'].text} (see Methods)"
    checklist = list(answers.values())
    for text in (checklist_markdown(checklist), render_report(results, "markdown", checklist)):
        rows = [line.split(" | ")[2] for line in text.splitlines() if re.match(r"\| \d+\.\d", line)]
        assert len(rows) == 71 and all(re.match(r"(Yes|Partial|No|N/A|—)", cell) for cell in rows)
