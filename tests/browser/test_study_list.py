"""The list of studies in a real browser: every column fits a 1,920- and a 1,366-pixel screen without
a horizontal scroll, with the longest cells the list really has (long names and models, excluded
participants, † on a small CI, a model's accuracy and gap "on N items both answered", a study whose
model runs are still queued, a model run without people to compare with)."""

from __future__ import annotations

import pytest

from modelruns.models import ModelRun, ModelSpec
from modelruns.services import setting_key
from studies.models import Participant
from studies.participants.decisions import participants_exclude
from tests.browser.helpers import sign_in
from tests.factories import Bot, pid, row_key, small_study
from tests.personas import researcher
from tests.results.conftest import model_run

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

LONG_MODEL = "HuggingFaceTB/SmolLM2-135M-Instruct-GGUF"


def _queued(study, n: int) -> None:
    for k in range(n):
        setting = {"template": 2, "k": k}
        spec, _ = ModelSpec.objects.get_or_create(name=f"queued-{k}", defaults={"model": f"local/queued-{k}"})
        ModelRun.objects.create(
            study=study, spec=spec, setting=setting, setting_key=setting_key(setting), status=ModelRun.Status.QUEUED
        )


def _studies(owner) -> dict[str, object]:
    made = {}
    for n, name in enumerate(
        (
            "Implicature: the paper's design with template 3, second pilot (native speakers of British English)",
            "Implicature replication: four units of five items, shuffled, with a model at every template",
        ),
        start=1,
    ):
        study = small_study(name, units=1, unit_size=5, per_unit=6, attention_checks=0, exclude_at=0, owner=owner)
        for person in range(5):
            Bot(study, pid(100 * n + person)).complete()
        fast = Participant.objects.filter(study=study).order_by("pk")[:2]
        participants_exclude(participant_ids=[participant.pk for participant in fast], reason="fast")
        model_run(study, LONG_MODEL, {"template": 2, "k": 0}, {row_key(row): "no" for row in range(1, 6)})
        made[name] = study
    # a model run and no people yet: nothing to compare with
    alone = small_study("Models first, people next week", units=1, unit_size=5, owner=owner)
    model_run(alone, LONG_MODEL, {"template": 3, "k": 5}, {row_key(row): "yes" for row in range(1, 6)})
    made["alone"] = alone
    # four demo runs queued, none done yet
    waiting = small_study("Demo: four runs queued", units=1, unit_size=5, owner=owner)
    _queued(waiting, 4)
    made["waiting"] = waiting
    return made


def _row(page, study) -> dict[str, str]:
    return page.eval_on_selector(
        f"#study-row-{study.pk}",
        "row => Object.fromEntries([...row.querySelectorAll('td[data-column]')]"
        ".map(cell => [cell.dataset.column, cell.innerText.replace(/\\s+/g, ' ').trim()]))",
    )


@pytest.mark.parametrize("width,height", [(1920, 1080), (1366, 768)])
def test_the_study_list_fits_the_screen_without_a_horizontal_scroll(
    live_server, page, artifacts, implicature_source, width, height
):
    from annotation.services import benchmark_import

    benchmark_import(name="implicature", source=implicature_source)
    owner = researcher()
    made = _studies(owner)
    sign_in(page, live_server, owner)
    page.set_viewport_size({"width": width, "height": height})
    page.goto(f"{live_server.url}/")
    page.wait_for_selector("#study-table table")
    assert "SmolLM2" in page.inner_text("#study-table")
    page.screenshot(path=str(artifacts / f"study-list-{width}.png"), full_page=True)
    sizes = page.evaluate(
        """() => {
            const wrap = document.getElementById('study-table');
            const table = wrap.querySelector('table');
            return {table: table.getBoundingClientRect().width, wrap: wrap.clientWidth,
                    scroll: wrap.scrollWidth, page: document.documentElement.scrollWidth,
                    window: document.documentElement.clientWidth};
        }"""
    )
    # neither the table inside its box nor the page scrolls sideways
    assert sizes["scroll"] <= sizes["wrap"] and sizes["table"] <= sizes["wrap"], sizes
    assert sizes["page"] <= sizes["window"], sizes
    # the last column, the best model's gap to the humans, is on the screen
    gap = page.locator("#study-table th").last.bounding_box()
    assert gap is not None and gap["x"] + gap["width"] <= width

    # no cell says "— on 0 items both answered": nothing to compare with is a dash
    alone = _row(page, made["alone"])
    assert alone["best_model_gap"] == "—" and "0 items" not in page.inner_text("#study-table")
    # runs still queued are counted as such, not as "0"
    assert _row(page, made["waiting"])["n_model_runs"] == "0 done 4 queued"
