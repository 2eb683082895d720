"""One item of a study as a person saw it and as a model was sent it, for the report's materials.

The study's first item (in its first unit's order, attention checks left out) whose record carries
the context a model reads (`meta.model.context`: a researcher's own items, lm-evaluation-harness
and Inspect tasks). Where the item came from an Inspect task, the context is the prompt Inspect's
own solvers built for it, and the item names the Inspect version that built it.
"""

from __future__ import annotations

from dataclasses import dataclass

from studies.models import Study, UnitItem

#: an item's extra field naming the Inspect version that built its prompt (from_inspect.tasks)
INSPECT_VERSION = "inspect_version"
#: an item's extra field naming the lm-evaluation-harness task that built its context (lm_eval.tasks)
LM_EVAL_TASK = "lm_eval_task"


@dataclass(frozen=True)
class ItemExample:
    key: str
    #: the text and options as a participant read them
    text: str
    options: tuple[str, ...]
    #: what the model was sent for this item
    model_context: str
    #: the Inspect version that built `model_context` ("" where Parity built it)
    inspect_version: str = ""
    #: the lm-evaluation-harness task that built `model_context` ("" where it did not)
    lm_eval_task: str = ""


def load_item_example(study: Study) -> ItemExample | None:
    rows = (
        UnitItem.objects.filter(unit__study=study, item__is_attention_check=False)
        .select_related("item")
        .order_by("unit__position", "unit_id", "order")
    )
    for row in rows[:50]:
        item = row.item
        model = (item.meta or {}).get("model") or {}
        context = model.get("context") if isinstance(model, dict) else None
        if isinstance(context, str) and context.strip():
            extra = (item.meta or {}).get("extra") or {}
            return ItemExample(
                key=item.key,
                text=str(item.prompt.get("text", "")),
                options=tuple(str(option) for option in item.prompt.get("options") or ()),
                model_context=context,
                inspect_version=str(extra.get(INSPECT_VERSION, "")),
                lm_eval_task=str(extra.get(LM_EVAL_TASK, "")),
            )
    return None
