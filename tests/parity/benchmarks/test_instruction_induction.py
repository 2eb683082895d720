from __future__ import annotations

import json
import shutil
from collections import Counter
from pathlib import Path

import pytest

from parity.benchmarks import get
from parity.benchmarks.base import DatasetError
from parity.benchmarks.instruction_induction import (
    TASKS,
    InstructionInduction,
    execution_prompt,
    in_context_prompt,
    induction_prompt,
)

from ._data import dataset

BENCH = InstructionInduction()
SMALL_EXECUTE_SETS = {"cause_and_effect": 25, "common_concept": 16, "informal_to_formal": 15}


@pytest.fixture(scope="module")
def source() -> Path:
    return dataset("instruction_induction")


@pytest.fixture(scope="module")
def bundle(source):
    return BENCH.load(source)


@pytest.fixture(scope="module")
def assets(bundle) -> dict:
    return {asset.key: asset.data for asset in bundle.assets}


def test_it_is_registered_with_every_published_file(source) -> None:
    assert isinstance(get("instruction_induction"), InstructionInduction)
    specs = BENCH.source_files()
    assert len(specs) == 97
    for spec in specs:
        assert (source / spec.path).is_file(), spec.path
        assert spec.url.endswith("/data/" + spec.path)


def test_24_tasks_with_100_induction_prompts_each(bundle) -> None:
    assert len(TASKS) == 24
    assert bundle.summary() == {"induce": 2400}
    assert Counter(item.meta["task"] for item in bundle.items) == {task: 100 for task in TASKS}
    first = bundle.items[0]
    assert first.key == "active_to_passive-001" and first.gold == ""
    assert {item.key for item in bundle.items} == {f"{task}-{n:03d}" for task in TASKS for n in range(1, 101)}
    for item in bundle.items:
        assert len(item.prompt["demonstrations"]) == 5
        assert item.prompt["text"] == induction_prompt(item.prompt["demonstrations"])
        assert item.prompt["text"].startswith("I gave a friend an instruction and five inputs.")
        assert item.prompt["text"].endswith("\n\nThe instruction was")


def test_the_prompt_text_is_the_published_one(bundle, source) -> None:
    published = json.loads((source / "induction_input" / "antonyms.json").read_text(encoding="utf-8"))
    by_key = {item.key: item for item in bundle.items}
    assert by_key["antonyms-001"].prompt["text"] == published["examples"]["1"]["input"]
    assert by_key["antonyms-001"].prompt["demonstrations"][0] == ["informed", "uninformed"]


def test_186_gold_references(assets) -> None:
    references = assets["references"]
    assert set(references) == set(TASKS)
    assert sum(len(texts) for texts in references.values()) == 186
    assert "Write an antonym to the following word." in references["antonyms"]


def test_execute_sets_have_the_published_sizes_and_every_acceptable_answer(assets) -> None:
    execute = assets["execute"]
    sizes = {task: len({entry["id"] for entry in entries}) for task, entries in execute.items()}
    assert sizes == {task: SMALL_EXECUTE_SETS.get(task, 100) for task in TASKS}
    # cause selection: each pair in both sentence orders, the cause is the answer either way
    assert len(execute["cause_and_effect"]) == 50
    first, second = execute["cause_and_effect"][:2]
    assert first["outputs"] == second["outputs"] == ["The child hurt their knee."]
    assert first["input"] == "Sentence 1: The child hurt their knee. Sentence 2: The child started crying."
    assert second["input"] == "Sentence 1: The child started crying. Sentence 2: The child hurt their knee."
    assert execute["common_concept"][0] == {
        "id": "1",
        "input": "rock climbing, elevators, helicopters",
        "outputs": ["involve vertical movement.", "involve going up."],
    }
    # only the full label the paper names (Appendix A), not "3" or "probably" alone
    assert execute["sentence_similarity"][0]["outputs"] == ["3 - probably"]
    assert execute["word_in_context"][0]["outputs"] == ["not the same", "no", "false"]
    assert execute["rhymes"][0]["outputs"][0] == "neat" and "sweet" in execute["rhymes"][0]["outputs"]
    assert (
        execute["translation_en-de"][0]["outputs"][0] == "Platz" and "Ort" in execute["translation_en-de"][0]["outputs"]
    )
    assert execute["antonyms"][0] == {"id": "1", "input": "fortunate", "outputs": ["unfortunate"]}
    assert assets["metrics"]["synonyms"] == "contains" and assets["metrics"]["sum"] == "exact"
    assert assets["induce_sizes"]["cause_and_effect"] == 26


def test_a_missing_or_truncated_file_is_refused(tmp_path, source) -> None:
    copy = tmp_path / "ii"
    shutil.copytree(source, copy)
    path = copy / "induction_input" / "sum.json"
    path.write_text(path.read_text(encoding="utf-8")[:5000], encoding="utf-8")
    with pytest.raises(DatasetError, match=r"induction_input/sum.json, row \d+: not valid JSON"):
        BENCH.load(copy)
    shutil.copy(source / "induction_input" / "sum.json", path)
    (copy / "annotations" / "diff.json").unlink()
    with pytest.raises(DatasetError, match="annotations/diff.json: file not found"):
        BENCH.load(copy)
    shutil.copy(source / "annotations" / "diff.json", copy / "annotations" / "diff.json")
    execute = copy / "raw" / "execute" / "negation.json"
    data = json.loads(execute.read_text(encoding="utf-8"))
    del data["examples"]["100"]
    execute.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(DatasetError, match="metadata says 100 examples, found 99"):
        BENCH.load(copy)


def test_humans_see_the_prompt_without_the_task_name(bundle) -> None:
    item = bundle.items[250]
    shown = BENCH.present(item.prompt, BENCH.design())
    assert item.prompt["task"] not in json.dumps(shown)
    assert [[d["input"], d["output"]] for d in shown["demonstrations"]] == item.prompt["demonstrations"]
    assert shown["text"] == item.prompt["text"] and shown["min_chars"] == 15
    assert BENCH.item_template == "participation/partials/_item_instruction.html"


def test_an_instruction_needs_at_least_min_chars_after_stripping() -> None:
    assert BENCH.parse_answer("  Write the opposite word.  ") == "Write the opposite word."
    assert BENCH.parse_answer("opposite word  ") is None  # 13 characters
    assert BENCH.parse_answer("opposite", {"min_chars": 5}) == "opposite"
    scored = BENCH.score("Write the plural form of the word.", "")
    assert scored.valid and not scored.correct and scored.answer == "Write the plural form of the word."
    assert not BENCH.score("short", "").valid


def test_units_give_each_participant_six_tasks_balanced_over_tasks(bundle) -> None:
    design = BENCH.design()
    units = BENCH.build_units(bundle.items, design)
    assert len(units) == 20
    tasks = Counter()
    keys = [key for unit in units for key in unit]
    assert len(keys) == len(set(keys)), "no prompt is given twice"
    for unit in units:
        unit_tasks = [key.rsplit("-", 1)[0] for key in unit]
        assert len(unit) == 6 and len(set(unit_tasks)) == 6
        tasks.update(unit_tasks)
    assert tasks == {task: 5 for task in TASKS}
    assert BENCH.build_units(bundle.items, design) == units
    assert BENCH.build_units(bundle.items, BENCH.design({"seed": 1})) != units
    uneven = BENCH.build_units(bundle.items, BENCH.design({"tasks_per_participant": 7, "annotators_per_task": 2}))
    counts = Counter(key.rsplit("-", 1)[0] for unit in uneven for key in unit)
    assert max(counts.values()) - min(counts.values()) <= 1 and min(counts.values()) >= 2
    with pytest.raises(ValueError, match="tasks_per_participant"):
        BENCH.build_units(bundle.items, BENCH.design({"tasks_per_participant": 25}))


def test_model_prompts() -> None:
    assert (
        execution_prompt("Write the plural form.", "cat") == "Instruction: Write the plural form.\nInput: cat\nOutput:"
    )
    assert (
        in_context_prompt([["cat", "cats"], ["dog", "dogs"]], "bird")
        == "Input: cat\nOutput: cats\n\nInput: dog\nOutput: dogs\n\nInput: bird\nOutput:"
    )
    assert induction_prompt([["a", "b"]]).endswith("pairs:\n\nInput: a\nOutput: b\n\nThe instruction was")
