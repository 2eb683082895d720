"""The report's materials set one item's page beside the prompt the model was sent for it, saying
who built the prompt (Inspect, with its version, for an item imported from an Inspect task)."""

from __future__ import annotations

import inspect_ai  # noqa: F401  (a model dependency: missing, these tests fail rather than skip)
import pytest

from annotation.models import Item
from annotation.services import inspect_task_import
from results.loading.item_example import load_item_example
from results.presenting.report.appendix import markdown_lines
from results.presenting.report.materials import study_materials
from studies.setup.studies import study_create
from tests.paths import REPO

pytestmark = pytest.mark.django_db

EXAMPLE = REPO / "docs" / "examples" / "inspect_implicature.py"


def test_an_inspect_items_page_is_shown_beside_the_prompt_inspect_built() -> None:
    inspect_task_import(spec=str(EXAMPLE), name="implicature-dev", limit=3)
    study = study_create(
        name="inspect study",
        benchmark="custom",
        design={"item_set": "implicature-dev", "unit_size": 0, "per_unit": 2, "attention_checks": 0},
    )
    example = load_item_example(study)
    assert example is not None
    item = Item.objects.get(key=example.key)
    assert example.text == item.prompt["text"] and list(example.options) == item.prompt["options"]
    assert example.model_context == item.meta["model"]["context"] and example.inspect_version == "0.3.285"
    lines = markdown_lines(study_materials(study))
    page = lines.index("#### An item as a person saw it")
    prompt = lines.index("#### The same item as the model was sent it")
    assert page < prompt
    assert lines[prompt + 2] == (
        f"Item {example.key}, as Inspect 0.3.285 sent it to the model (the task's own solvers built it), verbatim:"
    )
    assert "\n".join(lines[prompt + 5 :]).startswith(example.model_context)  # in its fence
    assert lines[page + 5] == item.prompt["text"] and "A) yes" in lines[page + 5 : prompt]
