"""No benchmark's page tells the answer: checked on implicature, whose yes/no buttons post their
own visible labels, and whose attention checks must look like any other item in the HTML
(MiQA's buttons and attention checks: tests/participation/test_miqa_pages.py)."""

from __future__ import annotations

import re

import pytest
from django.utils.html import escape

from annotation.models import Item
from parity.benchmarks.implicature.parsing import shown_text
from tests.annotation.helpers import button_values, without_csrf, without_item_token
from tests.factories import Bot, pid, small_study

pytestmark = pytest.mark.django_db


def _normalised(html: str, item: Item) -> str:
    # the texts as the page shows them (a Windows line break read as one, none at the ends)
    for text in (shown_text(item.prompt["utterance"]), shown_text(item.prompt["response"])):
        html = html.replace(escape(text), "")
    return re.sub(r"\d+", "#", without_item_token(without_csrf(html)))


def test_implicature_pages_post_only_the_visible_labels_and_hide_which_item_is_an_attention_check(implicature):
    study = small_study("widgets", unit_size=8, units=1, per_unit=1, attention_checks=3, exclude_at=0)
    bot = Bot(study, pid(900))
    bot.start_items()
    pages, golds = set(), set()
    for html, item, position in bot.item_pages():
        item_id = item.pk
        assert button_values(html) == ["yes", "no"]  # the labels the participant reads, for every item
        assert item.key not in html
        pages.add(_normalised(html, item))
        golds.add((item.is_attention_check, item.gold))
        assert bot.post("answer", {"item": item_id, "position": position, "answer": item.gold}).status_code == 200
    assert len(pages) == 1, "attention checks and items are the same HTML but for their texts"
    assert (True, "yes") in golds and {gold for _, gold in golds} == {"yes", "no"}
