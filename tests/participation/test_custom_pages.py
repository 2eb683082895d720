"""Participants answering a researcher's own items through the HTTP views, one kind after another:
buttons and keys for choices, yes/no and ratings, a box for short texts and numbers (a number must
parse), a textarea for free text; Markdown rendered safely; no accepted answer in the page; the
set's own attention check; then results that give accuracy only where an item has a right answer."""

from __future__ import annotations

import csv
import io
import json
import re

import pytest
from django.contrib.auth.models import User
from rest_framework.test import APIClient

from annotation.models import Item
from annotation.services import benchmark_import, benchmark_records_import
from results.computing.assemble import study_results_tree
from results.computing.tree import StudyResults
from results.loading.selectors import load_study_data
from results.presenting.tables import paper_tables
from studies.models import Response
from studies.setup.studies import study_create
from tests.annotation.helpers import button_values
from tests.factories import Bot, pid
from tests.paths import REPO

pytestmark = pytest.mark.django_db

EXAMPLE = REPO / "parity" / "benchmarks" / "custom" / "example.csv"
#: what each participant types or presses, by item id (the first a right answer, the second not)
ANSWERS = {
    "capital": ("Canberra", "Sydney"),
    "boiling": ("yes", "no"),
    "symbol": ("au", "Ag"),
    "author": ("austen", "Dickens"),
    "legs": ("8", "6"),
    "pi": ("3.14", "3.5"),
    "clarity": ("4", "4"),
    "summary": ("Rivers move sediment to the sea.", "They erode rock."),
    "check": ("Blue", "Blue"),
}
WIDGETS = {
    "capital": "buttons",
    "boiling": "buttons",
    "clarity": "buttons",
    "check": "buttons",
    "symbol": "box",
    "author": "box",
    "legs": "box",
    "pi": "box",
    "summary": "textarea",
}


@pytest.fixture
def study():
    benchmark_import(name="custom", source=EXAMPLE, options={"name": "example"})
    # a second set, whose attention check the study must never draw
    benchmark_records_import(
        name="custom",
        records=[
            {
                "id": "other-check",
                "text": "Choose Red.",
                "kind": "choice",
                "options": "Red|Blue",
                "gold": "Red",
                "attention_check": "true",
            }
        ],
        options={"name": "other"},
    )
    return study_create(
        name="own items",
        benchmark="custom",
        design={
            "item_set": "example",
            "unit_size": 0,
            "per_unit": 5,
            "attention_checks": 1,
            "exclude_at": 0,
            "shuffle_items": False,
        },
    )


def widget(html: str) -> str:
    if "<textarea" in html:
        return "textarea"
    return "box" if 'id="answer-box"' in html else "buttons"


def test_participants_answer_every_kind_and_the_results_are_honest_about_items_without_gold(study, superuser_client):
    for number, pick in ((1, 0), (2, 1)):
        bot = Bot(study, pid(700 + number))
        bot.start_items()
        seen = []
        for html, item, position in bot.item_pages():
            key = item.meta["id"]
            seen.append(key)
            assert widget(html) == WIDGETS[key]
            shown = html[html.index('id="custom-item"') : html.index("</form>")]
            if item.meta["kind"] in ("short_text", "number"):  # no accepted answer in the page before answering
                assert not any(re.search(rf"\b{re.escape(answer)}\b", shown) for answer in item.meta["answers"])
            if key == "capital":
                assert button_values(html) == ["Sydney", "Canberra", "Melbourne"] and 'data-keys="1"' in html
            if key == "boiling":
                assert button_values(html) == ["yes", "no"] and 'data-keys="y,1"' in html
            if key == "clarity":
                assert button_values(html) == ["1", "2", "3", "4", "5"]
                assert "<strong>1</strong> = very unclear" in html  # Markdown, rendered
            if key == "author":
                assert "<em>Pride and Prejudice</em>" in html
            if key == "legs":
                refused = bot.post("answer", {"item": item.pk, "position": position, "answer": "eight"})
                assert "Please type a number" in refused.content.decode()
                assert not Response.objects.filter(item=item, participant=bot.participant).exists()
            bot.post("answer", {"item": item.pk, "position": position, "answer": ANSWERS[key][pick]})
        assert sorted(seen) == sorted(ANSWERS)  # every item of the set and its own attention check
    stored = {
        (r.participant.prolific_pid, r.item.meta["id"]): r
        for r in Response.objects.select_related("item", "participant")
    }
    first = {key: stored[(pid(701), key)] for key in ANSWERS}
    assert all(first[key].correct for key in ("capital", "boiling", "symbol", "author", "legs", "pi", "check"))
    assert first["legs"].answer == "8" and not first["clarity"].correct and first["clarity"].valid
    second = {key: stored[(pid(702), key)] for key in ANSWERS}
    assert not any(second[key].correct for key in ("capital", "boiling", "symbol", "author", "legs", "pi"))

    results = study_results_tree(load_study_data(study), n_boot=50).to_json()
    assert results["human"]["accuracy"]["mean"] == pytest.approx(0.5)  # 6 of 6 and 0 of 6 items with gold
    by_kind = {row["kind"]: row for row in results["breakdowns"]["by_kind"]}
    assert by_kind["rating"]["has_gold"] is False and by_kind["rating"]["human"]["accuracy"] is None
    assert by_kind["rating"]["human"]["percent_agreement"] == 1.0
    assert by_kind["free_text"]["human"]["accuracy"] is None and by_kind["free_text"]["human"]["n_answers"] == 2
    assert by_kind["number"]["human"]["accuracy"] == pytest.approx(0.5)
    style = next(row for row in results["breakdowns"]["by_category"]["rows"] if row["category"] == "style")
    assert style["human"]["mean"] is None  # only a rating and a free text: nothing right or wrong
    assert "by_kind" in [table.key for table in paper_tables(StudyResults.from_json(results))]
    page = superuser_client.get(f"/studies/{study.pk}/results/")
    assert page.status_code == 200 and "Per kind of item" in page.content.decode()
    markdown = superuser_client.get(f"/studies/{study.pk}/export/markdown/")
    assert markdown.status_code == 200 and "| rating | 1 | 2 | no gold |" in markdown.content.decode()
    long = superuser_client.get(f"/studies/{study.pk}/export/csv/")
    assert long.status_code == 200 and "example/legs" in long.content.decode()
    api = APIClient()
    api.force_authenticate(User.objects.get(is_superuser=True))
    served = api.get(f"/api/studies/{study.pk}/results/").json()
    assert [row["kind"] for row in served["breakdowns"]["by_kind"]] == list(by_kind)


def test_only_the_chosen_sets_attention_checks_are_drawn(study):
    other = Item.objects.get(key="other/other-check")
    for number in range(5):
        bot = Bot(study, pid(800 + number))
        bot.start_items()
        assert other.pk not in bot.participant.sequence
        assert Item.objects.get(key="example/check").pk in bot.participant.sequence


def test_markup_in_an_items_text_is_shown_as_text_whether_plain_or_markdown():
    benchmark_records_import(
        name="custom",
        records=[
            {
                "id": "md",
                "text": "<script>alert(1)</script> **bold**",
                "format": "markdown",
                "kind": "yes_no",
                "gold": "yes",
            },
            {"id": "plain", "text": "<img src=x onerror=alert(1)>", "kind": "yes_no", "gold": "no"},
        ],
        options={"name": "markup"},
    )
    study = study_create(name="markup", benchmark="custom", design={"item_set": "markup", "shuffle_items": False})
    bot = Bot(study, pid(900))
    bot.start_items()
    pages = [
        html
        for html, item, position in bot.item_pages()
        if bot.post("answer", {"item": item.pk, "position": position, "answer": "yes"})
    ]
    assert "&lt;script&gt;alert(1)&lt;/script&gt; <strong>bold</strong>" in pages[0] and "<script>alert" not in pages[0]
    assert "&lt;img src=x onerror=alert(1)&gt;" in pages[1] and "<img src=x" not in pages[1]


def _walk(study, number: int, pick: int) -> None:
    bot = Bot(study, pid(700 + number))
    bot.start_items()
    for _html, item, position in bot.item_pages():
        bot.post("answer", {"item": item.pk, "position": position, "answer": ANSWERS[item.meta["id"]][pick]})


def test_the_default_export_and_the_api_keep_every_choice_and_leave_correctness_empty_without_gold(
    study, superuser_client
):
    """Only a free text (a person's own words) is withheld by default; a rating press, a number and
    a short text leave; an item without a gold is neither right nor wrong, in every export, the API
    and the per-category chart."""
    from results.presenting.charts import category_chart

    for number, pick in ((1, 0), (2, 1)):
        _walk(study, number, pick)
    long = superuser_client.get(f"/studies/{study.pk}/export/csv/").content.decode()
    rows = {(r["annotator"], r["item_key"].split("/")[1]): r for r in csv.DictReader(io.StringIO(long))}
    clarity, symbol, summary = rows[("A1", "clarity")], rows[("A1", "symbol")], rows[("A1", "summary")]
    assert (clarity["answer"], clarity["raw_answer"], clarity["free_text_withheld"]) == ("4", "4", "false")
    assert clarity["correct"] == "" and summary["correct"] == ""
    assert (symbol["answer"], symbol["free_text_withheld"], symbol["correct"]) == ("au", "false", "true")
    assert (rows[("A2", "author")]["answer"], rows[("A2", "author")]["correct"]) == ("Dickens", "false")
    assert (summary["answer"], summary["raw_answer"], summary["free_text_withheld"]) == ("", "", "true")
    assert "Rivers move sediment" not in long
    jsonl = [
        json.loads(line)
        for line in superuser_client.get(f"/studies/{study.pk}/export/jsonl/").content.split(b"\n")
        if line
    ]
    assert {row["correct"] for row in jsonl if row["item_key"] == "example/clarity"} == {None}
    wide = superuser_client.get(f"/studies/{study.pk}/export/wide-csv/").content.decode()
    assert next(r for r in csv.DictReader(io.StringIO(wide)) if r["item_key"] == "example/clarity")["A2"] == "4"
    api = APIClient()
    api.force_authenticate(User.objects.get(is_superuser=True))
    served = api.get(f"/api/studies/{study.pk}/responses/", {"page_size": 100}).json()["results"]
    by_key = {(r["annotator"], r["item_key"]): r for r in served}
    assert by_key[("A1", "example/clarity")]["answer"] == "4" and by_key[("A1", "example/clarity")]["correct"] is None
    assert by_key[("A1", "example/summary")]["free_text_withheld"] is True
    assert by_key[("A1", "example/legs")]["correct"] is True
    chart = category_chart(study_results_tree(load_study_data(study), n_boot=50)) or ""
    assert chart.count("no gold: not scored") == 1  # the style category: a rating and a free text only
