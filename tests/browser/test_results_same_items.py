"""The results page of an AmbiBench study where one person answered one episode (20 items) and a
model all 24 (480 items): the comparison is on the 20 items both answered and says so, the
all-items figures sit in their own labelled table, and no spread is shown for one annotator."""

from __future__ import annotations

import pytest

from annotation.models import Item
from studies.models import Participant
from studies.participants.answers import response_submit
from studies.participants.entry import participant_enter
from studies.participants.steps import item_mark_shown, participant_begin, participant_consent
from tests.annotation.helpers import ambibench_study, import_ambibench
from tests.browser.helpers import sign_in
from tests.factories import pid
from tests.personas import researcher
from tests.results.conftest import model_run

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

FLIP = {"X": "Y", "Y": "X"}
#: the positions the person gets wrong: 14 of 20 right
PERSON_WRONG = {1, 2, 4, 7, 9, 13}


def one_person_answers_one_episode(study) -> Participant:
    participant = participant_enter(study=study, pid=pid(0x70), prolific_session_id="SESSION0070").participant
    participant_consent(participant=participant, agree=True)
    participant = participant_begin(participant=participant)
    items = Item.objects.in_bulk(participant.sequence)
    for position, item_id in enumerate(participant.sequence, start=1):
        item_mark_shown(participant=participant)
        gold = items[item_id].gold
        answer = FLIP[gold] if position in PERSON_WRONG else gold
        response_submit(participant_id=participant.pk, item_id=item_id, position=position, raw_answer=answer)
    participant.refresh_from_db()
    return participant


def cells(page, table: str, row: int) -> dict[str, str]:
    columns = page.locator(f"#table-{table} thead th").all_inner_texts()
    values = page.locator(f"#table-{table} tbody tr").nth(row).locator("td").all_inner_texts()
    return dict(zip([c.strip() for c in columns], [v.strip() for v in values], strict=True))


def test_the_results_page_compares_on_the_items_both_answered_and_labels_the_rest(live_server, page, artifacts):
    import_ambibench()
    study = ambibench_study("AmbiBench demo", per_feature=4)
    person = one_person_answers_one_episode(study)
    assert person.status == Participant.Status.COMPLETED
    theirs = set(Item.objects.filter(pk__in=person.sequence).values_list("key", flat=True))
    # the model: right on the even positions of the person's episode (10/20), and on the first five
    # positions of every other episode (5/20 of 460 items): 125/480 = 26.0% on all its items
    answers = {}
    for item in Item.objects.filter(units__study=study, is_attention_check=False):
        position = int(item.meta["position"])
        right = position % 2 == 0 if item.key in theirs else position <= 5
        answers[item.key] = item.gold if right else FLIP[item.gold]
    assert len(answers) == 480
    model_run(study, "smollm2", {"format": "arrow"}, answers)

    sign_in(page, live_server, researcher(owns=[study]))
    page.goto(f"{live_server.url}/studies/{study.pk}/results/")
    page.wait_for_selector("#table-comparison")

    same = cells(page, "comparison", 0)
    assert same["Items both answered"] == "20"
    assert (same["Humans"], same["Model"]) == ("70.0%", "50.0%")
    assert same["Gap (model − humans)"] == "-20.0 pp"
    assert "the items both answered" in page.inner_text("#study-results h2 >> nth=0")
    assert "Every figure of a row is on the items both answered" in page.inner_text("#table-comparison")

    titles = page.locator("#study-results h2").all_inner_texts()
    assert "Accuracy on all the items each answered (different items: compare on the same items above)" in titles
    humans, model = cells(page, "accuracy", 0), cells(page, "accuracy", 1)
    assert humans["Items (all it answered)"] == "20" and humans["Accuracy on all its items"] == "70.0%"
    assert humans["95% CI"] == "—"  # one annotator: no interval
    assert model["Items (all it answered)"] == "480" and model["Accuracy on all its items"] == "26.0%"

    subject = next(
        cells(page, "by_category", row)
        for row in range(page.locator("#table-by_category tbody tr").count())
        if cells(page, "by_category", row)["Salient feature"] == person.unit.category
    )
    assert subject["Humans (n items)"] == "70.0% (20)"
    assert subject["smollm2 (format=arrow): items both answered (n)"] == "50.0% (20)"
    assert subject["smollm2 (format=arrow): all its items (n)"].endswith("(80)")
    assert page.inner_text("#table-by_position thead").count("episode") == 3
    assert "Humans (1 episode)" in page.inner_text("#table-by_position thead")

    cards = page.inner_text("dl.numbers")
    assert "1 annotator on 20 items · no CI with one annotator" in cards

    # the picture for the docs: the page's column, from the top down to the per-feature table
    page.set_viewport_size({"width": 1600, "height": 900})
    column = page.locator("#study-results").bounding_box()
    bottom = page.locator("#table-by_category").bounding_box()
    page.screenshot(
        path=str(artifacts / "results-same-items.png"),
        full_page=True,
        clip={
            "x": column["x"] - 16,
            "y": 0,
            "width": column["width"] + 32,
            "height": bottom["y"] + bottom["height"] + 16,
        },
    )
