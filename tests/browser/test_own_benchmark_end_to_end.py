"""A researcher's own benchmark from file to results, through the documented command and pages: a
CSV of items uploaded on the import page, or an lm-evaluation-harness task imported by
`import_benchmark lm_eval`; then a study on the set through the form, launched, completed by a
participant through the link the study page gives, a model run started from the results page on a
tiny local model, and the humans and the model side by side."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.core.management import call_command

from annotation.models import Item
from modelruns import shards
from modelruns.models import ModelResponse, ModelRun
from studies.models import Participant, Study
from tests.browser.helpers import each_item, fill_study_form, sign_in, through_consent_and_instructions
from tests.factories import pid

# a tiny random Llama saved through the real loaders, and the settings that let a run load it
from tests.modelruns.conftest import _model_cache, _model_sources, session_model_cache, tiny_model_dir  # noqa: F401
from tests.paths import REPO
from tests.personas import researcher

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

EXAMPLE = REPO / "parity" / "benchmarks" / "custom" / "example.csv"
TASK = REPO / "parity" / "benchmarks" / "lm_eval" / "example" / "example_mc.yaml"
FREE_TEXT = "Rivers carry sediment down to their deltas."


@pytest.fixture
def researcher_page(browser, live_server, settings):
    """A researcher's own browser, signed in; study pages give links on the live server."""
    settings.PUBLIC_URL = live_server.url
    context = browser.new_context()
    page = context.new_page()
    sign_in(page, live_server, researcher())
    yield page
    context.close()


def create_and_launch(page, name: str, design: dict[str, str]) -> tuple[Study, str]:
    """On the new-study form (the benchmark chosen): fill, save, launch; the study and the
    participant URL the study page gives for Prolific."""
    page.wait_for_selector("#study-form")
    fill_study_form(page, name, design)
    page.click("#create-study")
    page.wait_for_selector('#study-status[data-status="draft"], #study-form .errorlist, #form-errors')
    assert page.locator("#study-form").count() == 0, page.inner_text("#study-form")
    page.click("#move-live")
    page.wait_for_selector('#study-status[data-status="live"]')
    return Study.objects.get(name=name), page.inner_text("#study-url").strip()


def answer_in_the_browser(page, item: Item) -> None:
    """A right answer where the item has one, by the key or box its kind gives."""
    kind, gold = item.prompt["kind"], item.gold
    if kind == "choice":
        page.keyboard.press(str(item.prompt["options"].index(gold) + 1))
    elif kind == "yes_no":
        page.keyboard.press(gold[0])
    elif kind == "rating":
        page.keyboard.press("4")
    elif kind == "free_text":
        page.fill("#answer-box", FREE_TEXT)
        page.locator("#answer-box").press("Control+Enter")
    else:
        page.fill("#answer-box", gold)
        page.locator("#answer-box").press("Enter")


def participant_completes(page, url: str, study: Study) -> Participant:
    """A participant opens the study URL as Prolific fills it in and answers every item."""
    prolific_pid = pid(0xE2E)
    page.goto(
        url.replace("{{%PROLIFIC_PID%}}", prolific_pid)
        .replace("{{%STUDY_ID%}}", "STUDY0001")
        .replace("{{%SESSION_ID%}}", "SESSION0001")
    )
    page.wait_for_selector("#start")
    through_consent_and_instructions(page)
    participant = Participant.objects.get(study=study, prolific_pid=prolific_pid)
    for _, item in each_item(page, participant):
        answer_in_the_browser(page, item)
    # a study made on the new-study page asks its closing questions (optional) below the code
    page.wait_for_selector("#closing-questions")
    page.click("#return-to-prolific")
    page.wait_for_selector("#prolific", timeout=15000)
    assert f"cc={study.completion_code}" in page.inner_text("#url")
    participant.refresh_from_db()
    assert participant.status == Participant.Status.COMPLETED
    return participant


def run_a_model_from_the_results_page(page, study: Study, model_dir: Path) -> ModelRun:
    """From the study page to its results, start a run on the local model, let a worker score it
    and wait until the page's polling shows it done; the results page is then loaded afresh."""
    page.click("nav.crumbs >> text=Results")
    page.wait_for_selector("#model-runs #run_model")  # the runs section, loaded by htmx
    page.fill("#run_model", str(model_dir))
    page.fill("#run_device", "cpu")
    page.click("#model-runs button[type=submit]")
    page.wait_for_selector("#model-runs tr[id^=model-run-]")
    run = ModelRun.objects.get(study=study)
    shards.modelrun_work(run=run, worker="e2e")
    page.wait_for_selector(f'#model-run-{run.pk}[data-status="done"]', timeout=15000)
    run.refresh_from_db()
    assert run.status == ModelRun.Status.DONE, run.error
    page.reload()
    page.wait_for_selector("#table-comparison")
    return run


def cells(page, table: str, row: int) -> list[str]:
    return [text.strip() for text in page.locator(f"#table-{table} tbody tr").nth(row).locator("td").all_inner_texts()]


def assert_side_by_side(page, run: ModelRun, items: int, scored: int) -> str:
    """Humans (one annotator, every right answer) and the model on the same `items`, accuracy over
    the `scored` ones with a right answer, the model's as its stored answers give it (in the runs
    table too); the per-kind and per-category tables carry both. Returns the model's label there."""
    correct = ModelResponse.objects.filter(run=run, correct=True).count()
    accuracy = f"{100 * correct / scored:.1f}%"
    # on the items both answered: the scored ones, as both answered every item
    same = cells(page, "comparison", 0)
    assert same[0] == run.spec.name and same[2:5] == [str(scored), "100.0%", accuracy]
    # each on all its items, labelled as such
    humans, model = cells(page, "accuracy", 0), cells(page, "accuracy", 1)
    assert humans[:4] == ["Humans: mean over 1 annotator", "—", str(scored), "100.0%"]
    assert model[0] == run.spec.name and model[2:4] == [str(scored), accuracy]
    assert run.responses.count() == items
    # the runs section (loaded by htmx) counts the same answers
    page.wait_for_selector(f"#model-run-{run.pk}")
    assert f"({correct}/{scored}" in page.inner_text(f"#model-run-{run.pk}")
    label = f"{model[0]} ({model[1]})"
    for table in ("by_kind", "by_category"):
        header = page.inner_text(f"#table-{table} thead")
        assert "Humans" in header and label in header, header
    return label


@pytest.mark.usefixtures("prolific_standin")
def test_a_csv_of_ones_own_items_becomes_a_study_with_people_and_a_model(
    researcher_page,
    page,
    live_server,
    artifacts,
    tiny_model_dir,  # noqa: F811 (the imported fixture)
):
    researcher = researcher_page
    researcher.goto(f"{live_server.url}/studies/")
    researcher.click("#import-items-link")
    researcher.fill("#id_name", "my-items")
    researcher.set_input_files("#id_file", str(EXAMPLE))
    researcher.click("#import-items")
    researcher.wait_for_selector("#import-result")
    assert researcher.inner_text("#import-counts") == "9 created, 0 updated, 0 unchanged"
    researcher.click("#create-study-on-set")
    researcher.wait_for_selector("#study-form")
    assert researcher.input_value("#id_design_item_set") == "my-items"
    study, url = create_and_launch(researcher, "My own items", {"per_unit": "1", "attention_checks": "1"})
    assert url.startswith(f"{live_server.url}/s/{study.link}/")

    participant = participant_completes(page, url, study)
    assert participant.responses.count() == 9

    run = run_a_model_from_the_results_page(researcher, study, tiny_model_dir)
    assert run.responses.count() == 8  # the attention check is for people
    label = assert_side_by_side(researcher, run, items=8, scored=6)  # ratings and free texts have no right answer
    kinds = researcher.inner_text("#table-by_kind")
    assert "free text" in kinds and "no gold" in kinds and f"{label} acc_norm" in kinds
    categories = researcher.locator("#table-by_category tbody td:first-child").all_inner_texts()
    assert categories == ["geography", "literature", "maths", "science", "style"]
    researcher.screenshot(path=str(artifacts / "results-own-items.png"), full_page=True)


@pytest.mark.usefixtures("prolific_standin")
def test_an_lm_eval_task_becomes_a_study_with_people_and_a_model(
    researcher_page,
    page,
    live_server,
    artifacts,
    tiny_model_dir,  # noqa: F811 (the imported fixture)
):
    import lm_eval  # noqa: F401  (a test dependency: missing, this test fails rather than skips)

    call_command("import_benchmark", "lm_eval", "--task", str(TASK))
    researcher = researcher_page
    researcher.goto(f"{live_server.url}/studies/new/")
    researcher.click('a[data-benchmark="custom"]')
    study, url = create_and_launch(researcher, "A harness task", {"item_set": "parity_example_mc", "per_unit": "1"})

    participant = participant_completes(page, url, study)
    assert participant.responses.count() == 12

    run = run_a_model_from_the_results_page(researcher, study, tiny_model_dir)
    assert run.responses.count() == 12
    assert_side_by_side(researcher, run, items=12, scored=12)
    assert cells(researcher, "by_category", 0)[:3] == ["parity_example_mc", "100.0% (12)", "—"]
    researcher.screenshot(path=str(artifacts / "results-lm-eval-task.png"), full_page=True)
