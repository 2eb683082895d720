"""An Inspect task from import to results, as a researcher and two participants walk it: the task
imported on the items page, a study created on it and launched, two participants answering through
the study's link, a log of a model's run of the same task (written by Inspect itself) uploaded on
the runs panel, and the results page showing the people and the model on the same items, with the
paired test."""

from __future__ import annotations

import re
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from inspect_ai import eval as inspect_eval
from inspect_ai.model import ModelOutput, ModelUsage, get_model

from modelruns.models import ModelResponse, ModelRun
from studies.models import Participant, Study
from tests.browser.helpers import each_item, sign_in, through_consent_and_instructions
from tests.browser.test_own_benchmark_end_to_end import cells, create_and_launch
from tests.factories import pid
from tests.paths import REPO
from tests.personas import researcher

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

EXAMPLE = REPO / "docs" / "examples" / "inspect_implicature.py"
SAMPLES = 8


@pytest.fixture
def researcher_page(browser, live_server, settings):
    settings.PUBLIC_URL = live_server.url
    settings.PARITY_INSPECT_TASK_DIRS = [str(EXAMPLE.parent)]
    context = browser.new_context()
    page = context.new_page()
    sign_in(page, live_server, researcher())
    yield page
    context.close()


def model_log(directory: Path) -> Path:
    """Inspect's own run of the task on the same samples, by a model that always answers "yes" (A)."""

    def reply(*_: object) -> ModelOutput:
        output = ModelOutput.from_content(model="mockllm/model", content="ANSWER: A")
        output.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)  # nothing to count
        return output

    def run() -> list:
        return inspect_eval(
            f"{EXAMPLE}@implicature",
            model=get_model("mockllm/model", custom_outputs=reply),
            limit=SAMPLES,
            log_dir=str(directory),
            display="none",
        )

    # in a thread of its own: Playwright's event loop runs in this one, and Inspect runs its own
    with ThreadPoolExecutor(max_workers=1) as pool:
        logs = pool.submit(run).result()
    assert logs[0].status == "success"
    return Path(logs[0].location)


def participant_answers(page, url: str, study: Study, number: int, wrong: int) -> Participant:
    """A participant through the link: right on every item but the first `wrong` (in their order)."""
    page.goto(
        url.replace("{{%PROLIFIC_PID%}}", pid(number))
        .replace("{{%STUDY_ID%}}", "STUDY0001")
        .replace("{{%SESSION_ID%}}", f"SESSION000{number}")
    )
    page.wait_for_selector("#start")
    through_consent_and_instructions(page)
    participant = Participant.objects.get(study=study, prolific_pid=pid(number))
    for position, item in each_item(page, participant):
        options = item.prompt["options"]
        right = options.index(item.gold)
        page.keyboard.press(str((1 - right if position <= wrong else right) + 1))
    page.wait_for_selector("#closing-questions")
    participant.refresh_from_db()
    assert participant.status == Participant.Status.COMPLETED
    return participant


@pytest.mark.usefixtures("prolific_standin")
def test_an_inspect_task_and_its_log_put_people_and_the_model_on_the_same_items(
    researcher_page, browser, live_server, artifacts, tmp_path
):
    researcher = researcher_page
    researcher.goto(f"{live_server.url}/studies/items/import/")
    researcher.fill("#id_task", f"{EXAMPLE}@implicature")
    researcher.fill("#id_inspect_name", "implicature-dev")
    researcher.fill("#id_limit", str(SAMPLES))
    researcher.click("#import-inspect-task")
    researcher.wait_for_selector("#inspect-import-result", timeout=60000)
    assert researcher.inner_text("#inspect-import-counts") == f"{SAMPLES} created, 0 updated, 0 unchanged"
    assert "Inspect 0.3.285" in researcher.inner_text("#inspect-import-result")
    researcher.click("#create-study-on-inspect-set")
    researcher.wait_for_selector("#study-form")
    assert researcher.input_value("#id_design_item_set") == "implicature-dev"
    study, url = create_and_launch(
        researcher, "Implicature in Inspect", {"per_unit": "2", "attention_checks": "0", "unit_size": "0"}
    )

    people = []
    for number, wrong in ((1, 0), (2, 3)):
        context = browser.new_context()
        people.append(participant_answers(context.new_page(), url, study, number, wrong))
        context.close()
    assert [person.responses.count() for person in people] == [SAMPLES, SAMPLES]

    researcher.goto(f"{live_server.url}/studies/{study.pk}/")
    researcher.click("nav.crumbs >> text=Results")
    researcher.wait_for_selector("#inspect-log-form")
    researcher.set_input_files("#inspect_log", str(model_log(tmp_path)))
    researcher.click("#import-inspect-log")
    researcher.wait_for_selector("#inspect-log-imported, #inspect-log-refused", timeout=30000)
    assert researcher.locator("#inspect-log-refused").count() == 0, researcher.inner_text("#inspect-log-refused")
    run = ModelRun.objects.get(study=study)
    assert run.status == ModelRun.Status.DONE and run.model_identity["source"] == "inspect"
    # the model said "yes" (A) to every sample: right where the implicature is yes
    answers = ModelResponse.objects.filter(run=run).select_related("item")
    assert answers.count() == SAMPLES and {answer.answer for answer in answers} == {"A) yes"}
    assert all(answer.correct == (answer.item.gold == "A) yes") for answer in answers)
    right = sum(answer.correct for answer in answers)

    researcher.reload()
    researcher.wait_for_selector("#table-comparison")
    same = cells(researcher, "comparison", 0)
    people_right = f"{100 * (2 * SAMPLES - 3) / (2 * SAMPLES):.1f}%"
    assert same[0].startswith(run.spec.name) and same[2:5] == [
        str(SAMPLES),
        people_right,
        f"{100 * right / SAMPLES:.1f}%",
    ]
    # the paired test against these participants, on the same items
    row = [
        text.strip()
        for text in researcher.locator("#among-people-table tbody tr").first.locator("td").all_inner_texts()
    ]
    assert row[0].startswith(f"{run.spec.name} (Inspect log of implicature)"), row
    assert re.fullmatch(r"\d+, \d+, p = [\d.]+", row[5]), row  # McNemar: b, c, p
    researcher.screenshot(path=str(artifacts / "results-inspect.png"), full_page=True)
