"""A researcher reads five people's accuracy with its t-interval and the small-sample warning, then
follows an item where the model and the people differ to the texts the model read for it."""

from __future__ import annotations

import pytest

from annotation.models import Item
from tests.browser.helpers import sign_in
from tests.factories import Bot, pid, small_study
from tests.personas import researcher
from tests.results.conftest import model_run

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

FLIP = {"yes": "no", "no": "yes"}


def test_the_ci_over_five_people_is_named_and_flagged_and_an_item_shows_what_the_model_read(
    live_server, page, artifacts, implicature_source
):
    from annotation.services import benchmark_import

    benchmark_import(name="implicature", source=implicature_source)
    owner = researcher()
    study = small_study("five people", units=1, unit_size=10, per_unit=5, attention_checks=0, owner=owner)
    keys = sorted(Item.objects.filter(units__study=study, is_attention_check=False).values_list("key", flat=True))
    assert len(keys) == 10
    # person n gets the first n items wrong: 9, 8, 7, 6 and 5 of 10 right
    for n in range(1, 6):
        wrong = set(keys[:n])
        Bot(study, pid(0x50 + n)).complete(
            lambda item, wrong=wrong: FLIP[item.gold] if item.key in wrong else item.gold
        )
    golds = dict(Item.objects.filter(key__in=keys).values_list("key", "gold"))
    # the model is wrong on the last item only, where every person is right
    run = model_run(
        study,
        "smollm2",
        {"variant": "ranking", "template": 2, "k": 0, "shots_seed": 0},
        {key: FLIP[gold] if key == keys[-1] else gold for key, gold in golds.items()},
    )

    sign_in(page, live_server, owner)
    page.set_viewport_size({"width": 1400, "height": 900})
    page.goto(f"{live_server.url}/studies/{study.pk}/results/")
    cards = page.locator("dl.numbers").inner_text()
    # 0.9 … 0.5: mean 0.7, sample std 0.1581, t(0.975, 4) = 2.776: 0.7 ± 0.1963
    assert "70.0%" in cards and "95% CI [50.4, 89.6], t-interval" in cards
    assert (
        page.locator("dl.numbers small.warning").inner_text() == "Only 5 annotators, fewer than 10: a wide, rough CI."
    )
    assert "Student's t-interval over annotators" in page.locator("#study-results > p.meta").first.inner_text()
    assert "Student's t-interval over annotators" in page.locator("#table-accuracy").inner_text()
    # the picture for the docs: the headline figures down to the accuracy table and its notes
    top, bottom = page.locator("dl.numbers").bounding_box(), page.locator("#table-accuracy").bounding_box()
    page.screenshot(
        path=str(artifacts / "results-small-n.png"),
        full_page=True,
        clip={
            "x": top["x"] - 8,
            "y": top["y"] - 8,
            "width": top["width"] + 16,
            "height": bottom["y"] + bottom["height"] - top["y"] + 16,
        },
    )

    page.click(f"#disagreements-{run.pk} summary")
    page.click(f"#disagreements-{run.pk} a:has-text('{keys[-1]}')")
    page.wait_for_selector("#item-prompts")
    assert page.url.endswith(f"/results/item/?item={keys[-1]}&run={run.pk}")
    item = Item.objects.get(key=keys[-1])
    texts = page.locator("#item-prompts pre.model-text").all_inner_texts()
    context = f'Finish the following text:\n\nEsther asked "{item.prompt["utterance"]}" and Juan responded '
    context += f'"{item.prompt["response"]}", which means'
    assert [text.strip("\n") for text in texts] == [context + " yes", context + " no"]
    assert page.locator("#item-prompts mark").all_inner_texts() == [" yes", " no"]
    assert f"{FLIP[item.gold]} (wrong)" in page.locator("#item-answers").inner_text()
    page.screenshot(path=str(artifacts / "item-prompts.png"), full_page=True)

    # another setting for the same item: the run's choice is the page's form, no script needed
    page.select_option("#id_run", "")
    page.click("#item-prompt-form button[type=submit]")
    page.wait_for_selector("#item-prompts")
    assert "template 2, k=0" in page.locator("#item-prompts").inner_text()
    assert page.locator("#item-answers").count() == 0
