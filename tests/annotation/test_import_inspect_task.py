"""`import_inspect_task TASK [-T name=value]`: an Inspect task's samples become an item set of the
custom benchmark, written all or nothing, the same again changing nothing."""

from __future__ import annotations

from pathlib import Path

import inspect_ai  # noqa: F401  (a model dependency: missing, these tests fail rather than skip)
import pytest
from django.core.management import CommandError, call_command

from annotation.models import Item
from tests.paths import REPO

EXAMPLE = REPO / "docs" / "examples" / "inspect_implicature.py"


def test_the_worked_example_becomes_an_item_set_and_again_changes_nothing(db, capsys) -> None:
    call_command("import_inspect_task", str(EXAMPLE), "--limit", "4", "--name", "implicature-dev")
    out = capsys.readouterr().out
    assert "custom item set implicature-dev (Inspect task implicature, version 0, Inspect 0.3.285)" in out
    assert "4 created" in out
    items = Item.objects.filter(benchmark="custom").order_by("key")
    assert list(items.values_list("key", flat=True)) == [f"implicature-dev/{n}" for n in (1, 2, 3, 4)]
    first = items.get(key="implicature-dev/1")
    assert first.prompt["options"] == ["A) yes", "B) no"] and first.gold == "B) no"
    assert first.meta["extra"]["inspect_task"] == "implicature"
    assert first.meta["model"]["context"].startswith("Answer the following multiple choice question.")
    call_command("import_inspect_task", str(EXAMPLE), "--limit", "4", "--name", "implicature-dev")
    assert "0 created, 0 updated, 4 unchanged" in capsys.readouterr().out


def test_task_arguments_reach_the_task(db, tmp_path: Path, capsys) -> None:
    path = tmp_path / "arith.py"
    path.write_text(
        "from inspect_ai import Task, task\n"
        "from inspect_ai.dataset import MemoryDataset, Sample\n"
        "from inspect_ai.scorer import match\n"
        "from inspect_ai.solver import generate\n\n"
        "@task\n"
        "def arith(count: int = 1):\n"
        "    samples = [Sample(id=n, input=f'{n} + {n} = ?', target=str(2 * n)) for n in range(1, count + 1)]\n"
        "    return Task(dataset=MemoryDataset(samples), solver=generate(), scorer=match(numeric=True))\n"
    )
    call_command("import_inspect_task", f"{path}@arith", "-T", "count=3")
    assert Item.objects.filter(key__startswith="arith/").count() == 3
    assert Item.objects.get(key="arith/3").meta["answers"] == ["6"]


def test_a_refused_task_writes_nothing_and_says_why(db) -> None:
    with pytest.raises(CommandError, match="Refused, nothing was written: .*runs its samples in a sandbox"):
        call_command("import_inspect_task", "inspect_evals/mind2web_sc")
    with pytest.raises(CommandError, match="the task's arguments do not fit it"):
        call_command("import_inspect_task", str(EXAMPLE), "-T", "colour=blue")
    assert not Item.objects.filter(benchmark="custom").exists()
