"""`manage.py show_prompt`: the exact texts a model reads for an item, built as a run builds them,
checked against texts written out by hand from the published templates."""

from __future__ import annotations

import json
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from annotation.models import BenchmarkAsset, Item
from modelruns import selectors
from modelruns.shard_answers import request_inputs
from studies.setup.studies import study_create
from tests.annotation.helpers import ambibench_study, import_ambibench, import_miqa

pytestmark = pytest.mark.django_db

# implicature's template 2 (Ruis et al., Table 4), as its asset holds it
TEMPLATE_2 = 'Esther asked "{}" and Juan responded "{}", which means'


def _show(*args: str) -> str:
    out = StringIO()
    call_command("show_prompt", *args, stdout=out)
    return out.getvalue()


def _json(*args: str) -> dict:
    return json.loads(_show(*args, "--json"))


def _texts(found: dict) -> list[list[tuple[str, str]]]:
    return [[(text["text"], text["continuation"]) for text in prompt["texts"]] for prompt in found["prompts"]]


# -- implicature --------------------------------------------------------------------------------


def test_implicature_zero_shot_prints_both_full_texts_with_their_last_word(small_implicature_study):
    first = selectors.study_items(small_implicature_study)[0]
    context = "Finish the following text:\n\n" + TEMPLATE_2.format(first.prompt["utterance"], first.prompt["response"])
    found = _json("--study", small_implicature_study.name, "--item", "1", "--setting", "template=2", "k=0")
    assert (found["item_key"], found["position"], found["n_items"]) == (first.key, 1, 10)
    assert found["setting"] == {"variant": "ranking", "template": 2, "k": 0, "shots_seed": 0}
    assert _texts(found) == [[(context + " yes", " yes"), (context + " no", " no")]]
    assert found["prompts"][0]["request"] == {
        "type": "ChoiceRequest",
        "key": first.key,
        "context": context,
        "continuations": [" yes", " no"],
    }

    text = _show("--study", small_implicature_study.name, "--item", first.key)
    assert f"item 1 of 10: {first.key}" in text and "template 2, k=0" in text
    assert (
        f"--- text 1 of 2, continuation ' yes' (its last 4 characters) ---\n{context} yes\n--- end of text ---" in text
    )
    assert f"--- text 2 of 2, continuation ' no' (its last 3 characters) ---\n{context} no\n--- end of text ---" in text


def test_implicature_one_shot_puts_a_solved_dev_example_first_as_the_benchmark_draws_it(small_implicature_study):
    first = selectors.study_items(small_implicature_study)[0]
    found = _json("--study", small_implicature_study.name, "--item", first.key, "--setting", "k=1", "template=2")
    [[(yes_text, _), (no_text, _)]] = _texts(found)
    item = TEMPLATE_2.format(first.prompt["utterance"], first.prompt["response"])
    head, shot, rest = yes_text.split("\n\n", 2)
    # the paper's ExamplePrompt layout: header, the shot, the instruction, then the item
    assert head == "The following are examples of the task:"
    assert rest == f"Finish the following text:\n\n{item} yes" and no_text == yes_text[: -len(" yes")] + " no"
    # the shot is one dev example written out whole, with its right answer as the last word
    dev = [row for row in Item.objects.filter(benchmark="implicature", split="dev", is_attention_check=False)]
    written = {TEMPLATE_2.format(row.prompt["utterance"], row.prompt["response"]) + " " + row.gold for row in dev}
    assert shot in written
    # which example is the benchmark's draw: the command follows it, whatever it is
    inputs = request_inputs("implicature", [first], found["setting"], "causal")
    assert inputs.requests({})[0].context == yes_text[: -len(" yes")]


def test_implicature_contrastive_prints_both_options_a_and_b(small_implicature_study):
    found = _json(
        "--study", small_implicature_study.name, "--item", "2", "--setting", "variant=contrastive", "template=1"
    )
    [[(a_text, a), (b_text, b)]] = _texts(found)
    assert (a, b) == (" A", " B") and a_text.endswith(
        "Question: Which of the above texts is coherent, A or B?\nAnswer: A"
    )
    assert "\nA: question: " in a_text and "\nB: question: " in a_text


# -- AmbiBench ----------------------------------------------------------------------------------


def test_ambibench_prints_the_whole_episode_and_where_each_label_is_read():
    import_ambibench()
    study = ambibench_study()
    episode_item = next(item for item in selectors.study_items(study) if item.split == "episode")
    position = int(episode_item.prompt["position"])
    found = _json("--study", study.name, "--item", episode_item.key, "--setting", "format=arrow")
    assert len(found["group"]) == 20 and episode_item.key in found["group"]
    [prompt] = found["prompts"]
    assert prompt["kind"] == "multi_read" and len(prompt["reads"]) == 20
    [[(text, continuation)]] = _texts(found)
    assert continuation == "" and text.startswith(episode_item.prompt["instruction"] + "\n")
    read = prompt["reads"][position - 1]
    # arrow format: the sentence, a newline and ">" before the label; both spellings of X and Y
    assert text[: read["offset"]].endswith(episode_item.prompt["sentence"] + "\n>")
    assert text[read["offset"]] == episode_item.gold and read["candidates"] == ["X", "Y", " X", " Y"]

    printed = _show("--benchmark", "ambibench", "--item", episode_item.key, "--setting", "format=qa")
    assert "scored together with 19 other item(s)" in printed
    assert f"{episode_item.prompt['sentence']}\\nA:': ' X', ' Y', 'X', 'Y'" in printed


# -- MiQA ---------------------------------------------------------------------------------------


def test_miqa_prints_each_option_order_and_the_nli_pairs_and_the_generative_prompt():
    import_miqa()
    study = study_create(name="miqa prompts", benchmark="miqa", design={"unit_size": 8, "per_unit": 1})
    item = next(item for item in selectors.study_items(study) if item.prompt["direction"] == "implies")
    statement, first, second = item.prompt["statement"], item.prompt["options"]["a"], item.prompt["options"]["b"]
    question = 'Q: "{}". Which of the following two statements could that imply? (1) {} (2) {} A:'
    found = _json("--study", study.name, "--item", item.key, "--setting", "wording=3", "k=0")
    assert [prompt["key"] for prompt in found["prompts"]] == [f"{item.key}|ab", f"{item.key}|ba"]
    ab, ba = question.format(statement, first, second), question.format(statement, second, first)
    assert _texts(found) == [
        [(f"{ab} {first}", f" {first}"), (f"{ab} {second}", f" {second}")],
        [(f"{ba} {first}", f" {first}"), (f"{ba} {second}", f" {second}")],
    ]

    nli = _json("--study", study.name, "--item", item.key, "--kind", "nli")
    assert [prompt["kind"] for prompt in nli["prompts"]] == ["nli_pair", "nli_pair"]
    assert _texts(nli) == [[(statement, ""), (first, "")], [(statement, ""), (second, "")]]

    written = _show("--study", study.name, "--item", item.key, "--setting", "wording=generative")
    assert "(generation): greedy continuation of the prompt, at most 64 new tokens" in written
    assert f'--- text 1 of 1 ---\n"{statement}". Could that imply that "{first}"?\n--- end of text ---' in written


# -- refusals -----------------------------------------------------------------------------------


def test_bad_input_is_refused_with_the_reason(small_implicature_study):
    name = small_implicature_study.name
    with pytest.raises(CommandError, match="no item at position 11: there are 10"):
        _show("--study", name, "--item", "11")
    with pytest.raises(CommandError, match="no item with the key 'nope'"):
        _show("--study", name, "--item", "nope")
    with pytest.raises(CommandError, match="template must be one of"):
        _show("--study", name, "--item", "1", "--setting", "template=12")
    with pytest.raises(CommandError, match="no model setting 'shots'"):
        _show("--study", name, "--item", "1", "--setting", "shots=5")
    with pytest.raises(CommandError, match="scored with causal or seq2seq models, not nli"):
        _show("--study", name, "--item", "1", "--kind", "nli")
    with pytest.raises(CommandError, match="no study named"):
        _show("--study", "nope", "--item", "1")
    with pytest.raises(CommandError, match="unknown benchmark 'nope'"):
        _show("--benchmark", "nope", "--item", "1")
    with pytest.raises(CommandError, match="one of the arguments --study --benchmark is required"):
        _show("--item", "1")
    BenchmarkAsset.objects.filter(benchmark="implicature", key="templates").delete()
    with pytest.raises(CommandError, match="template 2 is not imported"):
        _show("--study", name, "--item", "1")
