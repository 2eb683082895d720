"""`import_benchmark lm_eval --task ...`: a harness task becomes an item set of the custom benchmark."""

from __future__ import annotations

from pathlib import Path

import lm_eval  # noqa: F401  (a test dependency: missing, these tests fail rather than skip)
import pytest
from django.core.management import CommandError, call_command

from annotation.models import Item
from tests.paths import REPO

EXAMPLE = REPO / "parity" / "benchmarks" / "lm_eval" / "example"


def test_it_imports_the_example_task_as_a_custom_item_set(db, capsys) -> None:
    call_command("import_benchmark", "lm_eval", "--task", str(EXAMPLE / "example_mc.yaml"), "--num-fewshot", "2")
    items = Item.objects.filter(benchmark="custom").order_by("key")
    assert items.count() == 12
    first = items.get(key="parity_example_mc/0")
    assert first.gold == "cow" and first.prompt["options"] == ["cow", "cat", "duck"]
    assert first.prompt["text"] == "Question: Which animal says moo?\nAnswer:"
    assert first.meta["category"] == "parity_example_mc"
    assert first.meta["model"]["continuations"] == [" cow", " cat", " duck"]
    assert first.meta["model"]["context"].count("Question:") == 3
    assert "12 created" in capsys.readouterr().out
    call_command("import_benchmark", "lm_eval", "--task", str(EXAMPLE / "example_mc.yaml"), "--num-fewshot", "2")
    assert "0 created, 0 updated, 12 unchanged" in capsys.readouterr().out


def test_a_generation_task_under_its_own_name(db) -> None:
    call_command(
        "import_benchmark", "lm_eval", "--task", str(EXAMPLE / "example_gen.yaml"), "--name", "sums", "--limit", "5"
    )
    items = Item.objects.filter(benchmark="custom")
    assert sorted(items.values_list("key", flat=True)) == [f"sums/{n}" for n in range(5)]
    assert items.get(key="sums/0").meta["model"] | {"context": ""} == {
        "context": "",
        "continuations": [],
        "stop": ["\n"],
        "max_tokens": 8,
    }


def test_a_refused_task_writes_nothing(db, tmp_path: Path) -> None:
    path = tmp_path / "lik.yaml"
    path.write_text(
        (EXAMPLE / "example_mc.yaml")
        .read_text()
        .replace("multiple_choice", "loglikelihood")
        .replace("example_mc", str(EXAMPLE / "example_mc"))
    )
    with pytest.raises(CommandError, match="Refused, nothing was written: .*output_type 'loglikelihood'"):
        call_command("import_benchmark", "lm_eval", "--task", str(path))
    with pytest.raises(CommandError, match="lm_eval needs --task"):
        call_command("import_benchmark", "lm_eval")
    assert not Item.objects.filter(benchmark="custom").exists()


def test_the_seed_draws_other_few_shot_examples_into_another_set(db) -> None:
    task = str(EXAMPLE / "example_mc.yaml")
    call_command("import_benchmark", "lm_eval", "--task", task, "--num-fewshot", "2", "--limit", "4")
    call_command(
        "import_benchmark",
        "lm_eval",
        "--task",
        task,
        "--num-fewshot",
        "2",
        "--limit",
        "4",
        "--seed",
        "7",
        "--name",
        "seed-7",
    )
    default = Item.objects.filter(benchmark="custom", key__startswith="parity_example_mc/").order_by("key")
    seeded = Item.objects.filter(benchmark="custom", key__startswith="seed-7/").order_by("key")
    assert [item.prompt for item in default] == [item.prompt for item in seeded]
    assert [item.meta["model"]["context"] for item in default] != [item.meta["model"]["context"] for item in seeded]


def test_a_task_file_that_would_run_code_is_refused_unless_trusted(db, tmp_path: Path) -> None:
    """`!function` makes the harness import the module beside the YAML: refused before that, the
    module never imported and nothing written; --trust-task-code imports it."""
    (tmp_path / "utils.py").write_text(
        "from pathlib import Path\n\nPath(__file__).with_name('ran.marker').write_text('imported')\n\n\n"
        "def process_docs(dataset):\n    return dataset\n"
    )
    for name in ("example_mc.jsonl", "example_mc_train.jsonl"):
        (tmp_path / name).write_text((EXAMPLE / name).read_text())
    lines = (EXAMPLE / "example_mc.yaml").read_text().splitlines()
    path = tmp_path / "coded.yaml"
    path.write_text("\n".join([lines[0], "process_docs: !function utils.process_docs", *lines[1:]]) + "\n")
    with pytest.raises(CommandError, match=r"Refused, nothing was written: .*line 2: !function utils.process_docs"):
        call_command("import_benchmark", "lm_eval", "--task", str(path), "--name", "coded")
    assert not (tmp_path / "ran.marker").exists()
    assert not Item.objects.filter(benchmark="custom").exists()
    call_command("import_benchmark", "lm_eval", "--task", str(path), "--name", "coded", "--trust-task-code")
    assert (tmp_path / "ran.marker").exists() and Item.objects.filter(key__startswith="coded/").count() == 12
