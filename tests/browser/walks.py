"""A small study of each benchmark and a participant who walks it in the browser, for the walks of
the accessibility and phone tests. `check(page, step)` is called on every page of the way."""

from __future__ import annotations

import json
import tempfile
from collections.abc import Callable
from pathlib import Path

from annotation.models import Item
from annotation.services import benchmark_import
from studies.models import Participant, Study
from studies.setup.studies import study_create
from tests.annotation.helpers import import_ambibench, import_instruction_induction, import_miqa
from tests.browser.helpers import wait_until_interactive, wait_until_settled
from tests.conftest import dataset
from tests.factories import entry_url, pid
from tests.paths import REPO

CUSTOM_EXAMPLE = REPO / "parity" / "benchmarks" / "custom" / "example.csv"
RATED_ANSWERS = [
    {"question_id": "miqa-001-generative", "model": "palm-540b", "answer": "No. It is a figure of speech."},
    {"question_id": "miqa-002-generative", "model": "palm-540b", "answer": "Yes, it could."},
]
#: what a participant writes where a benchmark asks for words (long enough for every minimum)
WRITTEN = "Give the word that means the opposite of the input word."


def _implicature(**fields) -> Study:
    benchmark_import(name="implicature", source=dataset("implicature"))
    design = {"units": 1, "unit_size": 2, "per_unit": 1, "attention_checks": 1, "exclude_at": 0}
    return study_create(name=fields.pop("name", "implicature walk"), benchmark="implicature", design=design, **fields)


def _ambibench(split: str) -> Callable[..., Study]:
    def create(**fields) -> Study:
        import_ambibench()
        design = {"split": split, "per_feature": 1, "format": "qa" if split == "episode" else "arrow"}
        return study_create(
            name=fields.pop("name", f"ambibench {split} walk"), benchmark="ambibench", design=design, **fields
        )

    return create


def _miqa(**fields) -> Study:
    import_miqa()
    design = {"units": 1, "unit_size": 2, "per_unit": 1, "attention_checks": 1}
    return study_create(name=fields.pop("name", "miqa walk"), benchmark="miqa", design=design, **fields)


def _miqa_rating(**fields) -> Study:
    import_miqa()
    with tempfile.TemporaryDirectory() as folder:
        answers = Path(folder) / "answers.jsonl"
        answers.write_text("".join(json.dumps(record) + "\n" for record in RATED_ANSWERS), encoding="utf-8")
        benchmark_import(name="miqa_rating", source=answers)
    design = {"models": "palm-540b", "per_unit": 1}
    return study_create(name=fields.pop("name", "miqa rating walk"), benchmark="miqa_rating", design=design, **fields)


def _instruction_induction(**fields) -> Study:
    import_instruction_induction()
    design = {"tasks_per_participant": 2, "annotators_per_task": 1}
    return study_create(
        name=fields.pop("name", "induction walk"), benchmark="instruction_induction", design=design, **fields
    )


def _custom(**fields) -> Study:
    benchmark_import(name="custom", source=CUSTOM_EXAMPLE, options={"name": "example"})
    design = {"item_set": "example", "unit_size": 0, "per_unit": 1, "attention_checks": 1}
    return study_create(name=fields.pop("name", "own items walk"), benchmark="custom", design=design, **fields)


#: a study factory per kind of item page; each takes study_create's keyword arguments (a language, ...)
STUDIES: dict[str, Callable[..., Study]] = {
    "implicature": _implicature,
    "ambibench-episode": _ambibench("episode"),
    "ambibench-instruction": _ambibench("instruction"),
    "miqa": _miqa,
    "miqa-rating": _miqa_rating,
    "instruction-induction": _instruction_induction,
    "custom": _custom,
}


def typed_answer(item: Item) -> str:
    """What a participant types into the item's box: the right answer where there is one."""
    if item.benchmark == "custom" and item.meta.get("kind") == "free_text" or not item.gold:
        return WRITTEN
    return item.gold.split("|")[0]


def answer(page, item: Item, *, touch: bool) -> None:
    """Answer the item on the page as a person does: type into its box (if it has one) and press
    its submit button, or press its first answer button; a tap on a touch screen, else a click."""
    box = page.locator("#answer-box")
    if box.count():
        box.fill(typed_answer(item))
        target = page.locator("#item-area button[type=submit]").first
    else:
        target = page.locator("#item-area button.choice").first
    if touch:
        target.tap()
    else:
        target.click()


def walk(page, live_server, study: Study, n: int, check: Callable[[object, str], None], *, touch: bool) -> Participant:
    """Start page → consent → instructions → every item → the done page, pressing each page's main
    button; `check(page, step)` on each page (items: after their first and second answers too, where
    AmbiBench shows the revealed labels). Returns the participant."""
    page.goto(live_server.url + entry_url(study, pid(n)))
    for step, selector in (("start", "#start"), ("consent", "#consent"), ("instructions", "#instructions")):
        page.wait_for_selector(selector)
        page.wait_for_load_state("load")
        check(page, step)
        button = page.locator(f"{selector} button.primary").first
        button.tap() if touch else button.click()
    page.wait_for_selector("#item-area")
    participant = Participant.objects.get(study=study, prolific_pid=pid(n))
    for position, item_id in enumerate(participant.sequence, start=1):
        # the progress bar's value, not its words: the same in every language
        page.wait_for_selector(f'#progress[aria-valuenow="{position - 1}"]')
        item = Item.objects.get(pk=item_id)
        if position <= 3 or position == participant.total:
            # checked while the item's first moments (participant.js: 300 ms without answers) run out,
            # not after them: the page is the same but for the area's data-ready
            wait_until_settled(page)
            check(page, f"item {position} of {participant.total}")
        wait_until_interactive(page)
        answer(page, item, touch=touch)
    page.wait_for_selector("#done")
    check(page, "done")
    participant.refresh_from_db()
    return participant
