"""The benchmarks' model side, pure: what each asks a model, and what it makes of the answers."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import jinja2
import pytest

from parity import benchmarks
from parity.benchmarks.base import ItemData, PairRequest, SimilarityRequest
from parity.benchmarks.implicature import model as implicature_model
from parity.engine import ChoiceRequest, GenerationRequest, MultiReadRequest, SimilarityScore
from parity.engine.similarity import GREEDY
from tests.conftest import datasets_dir


@dataclass(frozen=True)
class Score:
    logprob: float
    is_greedy: bool = False
    top_logprob: float | None = None
    top_token: str | None = None


@dataclass(frozen=True)
class Choice:
    scores: tuple[Score, ...]
    truncated_tokens: int = 0

    @property
    def best(self) -> int:
        values = [score.logprob for score in self.scores]
        return values.index(max(values))


@dataclass(frozen=True)
class Generated:
    text: str
    raw_text: str = ""
    stop_reason: str = "newline"
    truncated_tokens: int = 0


@pytest.fixture(scope="module")
def implicature_bundle():
    return benchmarks.get("implicature").load(datasets_dir() / "implicature")


@pytest.fixture(scope="module")
def implicature_data(implicature_bundle):
    test = [item for item in implicature_bundle.items if item.split == "test"]
    dev = [item for item in implicature_bundle.items if item.split == "dev"]
    assets = {asset.key: asset.data for asset in implicature_bundle.assets}
    return test, dev, assets


def _setting(**overrides: Any) -> dict[str, Any]:
    return benchmarks.get("implicature").model_setting(overrides)


# -- settings ------------------------------------------------------------------------------------


def test_settings_from_a_command_line_take_the_type_of_the_default():
    assert _setting(k="5", template="3") == {"variant": "ranking", "template": 3, "k": 5, "shots_seed": 0}


@pytest.mark.parametrize(
    "overrides, message",
    [
        ({"shots": "5"}, "no model setting 'shots'"),
        ({"template": "12"}, "template must be one of"),
        ({"k": "five"}, "whole number"),
        ({"variant": "contrastive", "template": "3"}, "contrastive template"),
        ({"shots_seed": "-1"}, "shots_seed must be 0 or more"),
    ],
)
def test_bad_settings_are_refused_with_the_reason(overrides, message):
    with pytest.raises(ValueError, match=message):
        benchmarks.get("implicature").model_setting(overrides)


def test_the_sweeps_are_the_papers_grids():
    implicature = benchmarks.get("implicature").model_settings(sweep=True)
    assert len(implicature) == 9 * 6 + 2 * 3
    assert {(s["template"], s["k"]) for s in implicature if s["variant"] == "ranking"} == {
        (t, k) for t in range(1, 10) for k in (0, 1, 5, 10, 15, 30)
    }
    miqa = benchmarks.get("miqa").model_settings(sweep=True)
    assert {(s["wording"], s["k"]) for s in miqa} == {  # Table 3: four wordings, both baselines, k = 0, 1, 5
        (wording, k) for wording in ("1", "2", "3", "4", "empty", "pick") for k in (0, 1, 5)
    } and len(miqa) == 18
    assert [s["format"] for s in benchmarks.get("ambibench").model_settings(sweep=True)] == ["arrow", "qa"]
    assert benchmarks.get("implicature").model_settings() == [_setting()]


# -- implicature ---------------------------------------------------------------------------------


def test_zero_shot_template_2_compares_yes_and_no_after_the_shared_prefix(implicature_data):
    test, dev, assets = implicature_data
    item = test[0]
    [request] = benchmarks.get("implicature").model_requests([item], assets, _setting())
    assert isinstance(request, ChoiceRequest) and request.key == item.key
    assert request.context == (
        f'Finish the following text:\n\nEsther asked "{item.prompt["utterance"]}" and Juan '
        f'responded "{item.prompt["response"]}", which means'
    )
    assert request.continuations == (" yes", " no")


@pytest.mark.parametrize("template", [1, 2, 3, 4, 5, 6])
@pytest.mark.parametrize("k", [0, 1, 5])
def test_k_shot_prompts_match_the_published_promptsource_templates(implicature_data, template, k):
    test, dev, assets = implicature_data
    item = test[7]
    setting = _setting(template=str(template), k=str(k))
    [request] = benchmarks.get("implicature").model_requests([item], assets, setting, pool=dev)
    shots = implicature_model.select_shots(item, dev, k)
    source = assets["promptsource"][str(k)][str(template)]
    rendered = jinja2.Template(source).render(
        utterance=item.prompt["utterance"],
        response=item.prompt["response"],
        implicature=item.gold,
        prompts={
            "utterance": [s.prompt["utterance"] for s in shots],
            "response": [s.prompt["response"] for s in shots],
            "implicature": [s.gold for s in shots],
        },
    )
    assert request.context == rendered.split("|||")[0].rstrip(" ")


def test_k_shot_examples_are_drawn_per_item_seeded_distinct_and_from_the_whole_dev_set(implicature_data):
    test, dev, assets = implicature_data
    setting = _setting(k="5")
    first = [implicature_model.select_shots(item, dev, 5) for item in test]
    again = [implicature_model.select_shots(item, dev, 5) for item in test[::-1]][::-1]
    assert first == again  # reproducible, whatever else is scored and in whatever order
    assert all(len({shot.key for shot in shots}) == 5 for shots in first)
    assert all(shot.split == "dev" for shots in first for shot in shots)
    assert len({tuple(shot.key for shot in shots) for shots in first}) > 590  # a fresh draw per item
    assert {shot.key for shots in first for shot in shots} == {item.key for item in dev}  # nothing left out
    requests = benchmarks.get("implicature").model_requests(test[:3], assets, setting, pool=dev)
    for request, shots in zip(requests, first[:3]):
        for shot in shots:  # each shot appears as a coherent example, gold word included
            assert f'responded "{shot.prompt["response"]}", which means {shot.gold}\n\n' in request.context
    other_seed = [implicature_model.select_shots(item, dev, 5, seed=1) for item in test[:20]]
    assert other_seed != first[:20]


def test_an_item_is_never_its_own_example_and_too_many_shots_are_refused(implicature_data):
    test, dev, assets = implicature_data
    for item in dev[:5]:  # a dev study draws from the other 117
        for k in (30, 117):
            assert item.key not in {shot.key for shot in implicature_model.select_shots(item, dev, k)}
    with pytest.raises(ValueError, match="only 118"):
        implicature_model.select_shots(test[0], dev, 119)


def test_the_answer_is_the_likelier_word_and_correct_when_it_is_gold(implicature_data):
    test, _, _ = implicature_data
    yes_item = next(item for item in test if item.gold == "yes")
    no_item = next(item for item in test if item.gold == "no")
    results = {
        yes_item.key: Choice((Score(-1.0), Score(-2.0)), truncated_tokens=3),
        no_item.key: Choice((Score(-1.0), Score(-2.0))),
    }
    answers = benchmarks.get("implicature").model_answers([yes_item, no_item], _setting(), results)
    assert (answers[yes_item.key].answer, answers[yes_item.key].correct) == ("yes", True)
    assert (answers[no_item.key].answer, answers[no_item.key].correct) == ("yes", False)
    assert answers[yes_item.key].truncated_tokens == 3
    assert answers[yes_item.key].scores["p_yes"] == pytest.approx(1 / (1 + math.exp(-1)))


def test_the_contrastive_variant_shows_both_texts_as_a_and_b_in_a_seeded_order(implicature_data):
    test, dev, assets = implicature_data
    setting = _setting(variant="contrastive", template="2", k="1")
    definition = benchmarks.get("implicature")
    requests = definition.model_requests(test[:40], assets, setting, pool=dev)
    assert requests == definition.model_requests(test[:40], assets, setting, pool=dev)
    positions = []
    for item, request in zip(test[:40], requests):
        coherent = (
            f'Esther asked "{item.prompt["utterance"]}" and Juan responded "{item.prompt["response"]}", '
            f"which means {item.gold}"
        )
        other = coherent[: -len(item.gold)] + ("no" if item.gold == "yes" else "yes")
        assert request.context.startswith("The following are examples of the task:\n\nA: ")
        assert request.context.endswith("Question: Which of the above texts is coherent, A or B?\nAnswer:")
        assert request.continuations == (" A", " B")
        tail = request.context.rsplit("Consider the following two texts:\n\n", 1)[1]
        at = 0 if tail.startswith(f"A: {coherent}\n") else 1
        assert tail.startswith(f"A: {other}\nB: {coherent}\n") if at else f"B: {other}\n" in tail
        assert request.context.count("Answer:") == 2  # the shot is answered, the item is not
        positions.append(at)
    assert 0 < sum(positions) < 40  # both placements occur
    results = {item.key: Choice((Score(-1.0), Score(-3.0))) for item in test[:40]}  # the model always says A
    answers = definition.model_answers(test[:40], setting, results)
    assert [answers[item.key].correct for item in test[:40]] == [at == 0 for at in positions]
    assert all(answers[item.key].raw_answer == "A" for item in test[:40])


# -- AmbiBench -----------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def ambibench_items() -> list[ItemData]:
    return benchmarks.get("ambibench").load(None, {"episodes": 3, "instruction_prompts": 2}).items


def test_ambibench_reads_all_20_labels_of_an_episode_in_one_request(ambibench_items):
    definition = benchmarks.get("ambibench")
    episode = [item for item in ambibench_items if item.split == "episode" and item.prompt["episode"] == "ep-0001"]
    requests = definition.model_requests(episode[::-1], {}, definition.model_setting())
    assert len(requests) == 1 and isinstance(requests[0], MultiReadRequest)
    [request] = requests
    assert request.key == "ep-0001" and len(request.reads) == 20
    ordered = sorted(episode, key=lambda item: item.prompt["position"])
    fmt = ordered[0].prompt["format"]
    lead = " " if fmt == "qa" else ""
    other = "" if lead else " "
    for item, read in zip(ordered, request.reads):
        # both spellings of each label, read at the same place (merged as the authors' combine_keys does)
        assert read.candidates == (lead + "X", lead + "Y", other + "X", other + "Y")
        assert request.text[read.offset : read.offset + len(lead) + 1] == lead + item.gold
        assert request.text[: read.offset].endswith(item.prompt["sentence"] + ("\nA:" if fmt == "qa" else "\n>"))


def test_ambibench_format_setting_renders_every_episode_in_that_format(ambibench_items):
    definition = benchmarks.get("ambibench")
    episodes = [item for item in ambibench_items if item.split == "episode"]
    for fmt, marker in (("arrow", "\n>"), ("qa", "\nA: ")):
        requests = definition.model_requests(episodes, {}, definition.model_setting({"format": fmt}))
        assert len(requests) == 3 and all(len(request.reads) == 20 for request in requests)
        assert all(request.text.count(marker) == 20 for request in requests)
    assert definition.model_groups(episodes, {}) == [
        [item.key for item in episodes if item.prompt["episode"] == key] for key in ("ep-0001", "ep-0002", "ep-0003")
    ]


@dataclass(frozen=True)
class Reads:
    reads: tuple[Any, ...]
    truncated_tokens: int = 0


@dataclass(frozen=True)
class ReadResult:
    scores: tuple[Score, ...]


def _read(fmt: str, percentages: dict[str, float]) -> ReadResult:
    """A label read as the engine returns it, from a top-k table like the OpenAI API's (percent)."""
    from parity.benchmarks.ambibench.model import spellings

    top = max(percentages, key=percentages.get)
    top_logprob = math.log(percentages[top] / 100)
    return ReadResult(
        tuple(
            Score(math.log(percentages.get(text, 1e-6) / 100), text == top, top_logprob, top) for text in spellings(fmt)
        )
    )


def test_ambibench_answers_take_the_likelier_label_and_record_p_correct(ambibench_items):
    definition = benchmarks.get("ambibench")
    episode = [item for item in ambibench_items if item.split == "episode" and item.prompt["episode"] == "ep-0002"]
    reads = tuple(_read("arrow", {"X": 70, "Y": 20}) for _ in range(20))
    answers = definition.model_answers(
        episode, definition.model_setting({"format": "arrow"}), {"ep-0002": Reads(reads)}
    )
    for item in episode:
        answer = answers[item.key]
        assert answer.answer == "X" and answer.correct == (item.gold == "X") and answer.valid
        assert answer.scores["p_correct"] == pytest.approx(0.7 if item.gold == "X" else 0.2, abs=1e-6)
        assert answer.scores["position"] == item.prompt["position"]


# Top-k tables (percent) at a label position, the gold label, and what the authors' rule gives:
# kunhanda/task_ambiguity metric_wrangler.py `MetricWrangler.check_accuracy` after `combine_keys`
# (commit 1667ceb), run on these very tables: (accuracy, argmax key after merging).
AUTHORS_CASES = [
    ({"X": 40, " X": 10, "Y": 20, " Y": 5, "\n": 3}, "X", (1, "X")),
    ({"\n": 50, "X": 30, " X": 10, "Y": 5}, "X", (0, "\n")),
    ({"Z": 35, "X": 25, " X": 15, "Y": 10}, "X", (1, "X")),
    ({" Y": 30, "X": 28, " X": 5, "Y": 4}, "Y", (1, "Y")),
    ({" the": 45, " X": 30, " Y": 20}, "X", (0, " the")),
]


@pytest.mark.parametrize(("percentages", "gold", "expected"), AUTHORS_CASES)
@pytest.mark.parametrize("fmt", ["arrow", "qa"])
def test_ambibench_merges_both_spellings_and_an_answer_outweighed_by_another_token_is_invalid(
    ambibench_items, percentages, gold, expected, fmt
):
    definition = benchmarks.get("ambibench")
    item = next(item for item in ambibench_items if item.split == "instruction" and item.gold == gold)
    answer = definition.model_answers(
        [item], definition.model_setting({"format": fmt}), {item.key: Choice(_read(fmt, percentages).scores)}
    )[item.key]
    accuracy, said = expected
    assert answer.correct == bool(accuracy)
    assert answer.valid == (said in ("X", "Y"))
    assert (answer.answer, answer.raw_answer) == ((said, said) if answer.valid else ("", said))
    assert answer.scores["top_is_label"] == (max(percentages, key=percentages.get).strip() in ("X", "Y"))


def test_ambibench_instruction_prompts_compare_x_and_y_after_the_query(ambibench_items):
    definition = benchmarks.get("ambibench")
    prompts = [item for item in ambibench_items if item.split == "instruction"]
    requests = definition.model_requests(prompts, {}, definition.model_setting({"format": "qa"}))
    assert len(requests) == len(prompts) and all(isinstance(request, ChoiceRequest) for request in requests)
    for item, request in zip(prompts, requests):
        assert request.continuations == (" X", " Y", "X", "Y")
        assert request.context.endswith(f"Q: {item.prompt['query']}\nA:")


# -- MiQA ----------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def miqa_items() -> list[ItemData]:
    return benchmarks.get("miqa").load(datasets_dir() / "miqa").items


def test_miqa_asks_each_question_twice_with_the_options_swapped(miqa_items):
    definition = benchmarks.get("miqa")
    item = miqa_items[0]
    requests = definition.model_requests([item], {}, definition.model_setting({"k": "1"}), pool=miqa_items)
    assert [request.key for request in requests] == [f"{item.key}|ab", f"{item.key}|ba"]
    first, second = (item.prompt["options"][key] for key in ("a", "b"))
    assert (
        f"(1) {first} (2) {second} A:" in requests[0].context and f"(1) {second} (2) {first} A:" in requests[1].context
    )
    assert requests[0].continuations == (" " + first, " " + second) == requests[1].continuations
    assert requests[0].context.count("\n\n") == 1  # one solved question before it


def test_miqa_scores_each_option_order_as_its_own_answer(miqa_items):
    """Appendix A: each question is presented twice, the options swapped; Table 3's accuracies are
    over both presentations (multiples of 1/300 per direction). The averaged decision rides along."""
    definition = benchmarks.get("miqa")
    item = miqa_items[0]  # gold "b"
    results = {
        f"{item.key}|ab": Choice((Score(-1.0), Score(-4.0))),  # this order prefers a by 3
        f"{item.key}|ba": Choice((Score(-6.0), Score(-2.0))),
    }  # this one prefers b by 4
    answers = definition.model_answers([item], definition.model_setting(), results)[item.key]
    assert [(a.variant, a.answer, a.correct) for a in answers] == [("ab", "a", False), ("ba", "b", True)]
    assert answers[0].scores["logprobs"] == {"a": -1.0, "b": -4.0}
    for answer in answers:
        assert answer.scores["mean_logprob"] == {"a": -3.5, "b": -3.0}
        assert answer.scores["averaged_pick"] == "b" and answer.scores["averaged_correct"] is True


def test_a_tie_between_the_options_is_no_answer_and_counts_wrong(miqa_items):
    definition = benchmarks.get("miqa")
    item = miqa_items[1]  # implied-by, gold "a"
    results = {
        f"{item.key}|ab": Choice((Score(-2.0), Score(-2.0))),
        f"{item.key}|ba": Choice((Score(-2.0), Score(-2.0))),
    }
    answers = definition.model_answers([item], definition.model_setting(), results)[item.key]
    assert [(a.answer, a.raw_answer, a.valid, a.correct) for a in answers] == [("", "tie", False, False)] * 2
    assert answers[0].scores["averaged_pick"] == "" and answers[0].scores["averaged_correct"] is False


def test_miqa_with_an_nli_model_scores_one_minus_p_contradiction(miqa_items):
    definition = benchmarks.get("miqa")
    item = miqa_items[1]  # implied-by, gold "a"
    requests = definition.model_requests([item], {}, definition.model_setting(), kind="nli")
    assert all(isinstance(request, PairRequest) for request in requests) and len(requests) == 2
    assert requests[0].hypothesis == item.prompt["statement"]  # the option is the premise here

    @dataclass(frozen=True)
    class Nli:
        score: float
        probabilities: dict

    results = {
        f"{item.key}|nli|a": Nli(0.9, {"contradiction": 0.1}),
        f"{item.key}|nli|b": Nli(0.4, {"contradiction": 0.6}),
    }
    answer = definition.model_answers([item], definition.model_setting(), results, kind="nli")[item.key]
    assert answer.answer == "a" and answer.correct and answer.scores["not_contradiction"] == {"a": 0.9, "b": 0.4}


# -- instruction induction ---------------------------------------------------------------------


def test_instruction_induction_generates_then_executes_then_compares():
    definition = benchmarks.get("instruction_induction")
    item = ItemData(
        key="antonyms-001",
        split="induce",
        gold="",
        prompt={"task": "antonyms", "text": "I gave a friend ... The instruction was", "demonstrations": []},
    )
    assets = {
        "execute": {
            "antonyms": [
                {"input": "hot", "outputs": ["cold"]},
                {"input": "up", "outputs": ["down"]},
                {"input": "big", "outputs": ["small"]},
            ]
        },
        "references": {"antonyms": ["Write the opposite.", "Give an antonym."]},
    }
    setting = definition.model_setting({"execute_limit": "2"})
    [first] = definition.model_requests([item], assets, setting, prior={})
    # all 50 tokens, as the authors generate them: a model that opens with ':\n\n' still gets its instruction
    assert isinstance(first, GenerationRequest) and first.max_new_tokens == 50 and not first.stop_at_newline

    raw = ' probably:\n\n"write the opposite word"\n\nInput: hot'
    prior = {first.key: Generated(raw, raw, "length")}
    later = [r for r in definition.model_requests([item], assets, setting, prior=prior) if r.key not in prior]
    assert [r.prompt for r in later if isinstance(r, GenerationRequest)] == [
        "Instruction: write the opposite word\nInput: hot\nOutput:",
        "Instruction: write the opposite word\nInput: up\nOutput:",
    ]
    assert all(r.max_new_tokens == 30 for r in later if isinstance(r, GenerationRequest))
    [similarity] = [r for r in later if isinstance(r, SimilarityRequest)]
    # "auto": the scorer picks the paper's model where it is cached, else the packaged MiniLM
    assert similarity.candidate == "write the opposite word" and similarity.model == "auto"
    results = {
        **prior,
        later[0].key: Generated(" cold."),
        later[1].key: Generated(" left"),
        similarity.key: SimilarityScore(0.8, 0.7, 0.9, 0, "all-MiniLM-L6-v2", GREEDY, 6),
    }
    answer = definition.model_answers([item], setting, results, assets=assets)[item.key]
    assert answer.answer == "write the opposite word" and answer.valid
    assert answer.scores["execution_accuracy"] == 0.5 and answer.scores["reference_f1"] == 0.8
    # the scale is stored with the score: model, scorer, layer, rescaling
    assert answer.scores["similarity_model"] == "all-MiniLM-L6-v2" and answer.scores["similarity_layer"] == 6
    assert answer.scores["similarity_scorer"] == GREEDY and answer.scores["similarity_rescaled"] is False
    assert answer.scores["similarity_baseline"] is None


def test_written_and_gold_instructions_are_executed_and_compared_like_a_models():
    from parity.benchmarks.instruction_induction import model as induction

    definition = benchmarks.get("instruction_induction")
    assets = {"execute": {"antonyms": [{"input": "hot", "outputs": ["cold"]}, {"input": "up", "outputs": ["down"]}]}}
    references = {"antonyms": ["Write the opposite.", "Give an antonym.", "Reverse the meaning."]}
    setting = definition.model_setting({"similarity_model": "embedder-x"})
    gold = induction.gold_instructions(references, ["antonyms", "sum"])
    # leave-one-out: each gold instruction against the other gold instructions of its task only
    assert [(g.text, g.references) for g in gold] == [
        ("Write the opposite.", ("Give an antonym.", "Reverse the meaning.")),
        ("Give an antonym.", ("Write the opposite.", "Reverse the meaning.")),
        ("Reverse the meaning.", ("Write the opposite.", "Give an antonym.")),
    ]
    assert [g.gold_index for g in gold] == [0, 1, 2]
    written = [
        induction.written_instruction("written|1", "antonyms", "Write the opposite.", references),
        induction.written_instruction("written|2", "antonyms", "Write the opposite.", references),
    ]
    assert written[0].references == tuple(references["antonyms"])  # a person's: against every gold one
    instructions = [*written, *gold]
    asked = induction.baseline_requests(instructions, assets, setting)
    executions = [r for r in asked if isinstance(r, GenerationRequest)]
    # the same text is executed once (6 prompts for 3 distinct texts), with the model run's prompt and limits
    assert len(executions) == 6 and {r.max_new_tokens for r in executions} == {30}
    assert "Instruction: Give an antonym.\nInput: up\nOutput:" in {r.prompt for r in executions}
    similarity = [r for r in asked if isinstance(r, SimilarityRequest)]
    assert len(similarity) == 5 and {r.model for r in similarity} == {"embedder-x"}

    @dataclass(frozen=True)
    class Out:
        text: str

    outputs = {
        "Write the opposite.": (" cold", " down."),
        "Give an antonym.": (" cold", " left"),
        "Reverse the meaning.": (" hot", " up"),
    }
    results = {
        r.key: Out(outputs[r.prompt.split("\n")[0].removeprefix("Instruction: ")][int(r.key[-1])]) for r in executions
    }
    rescaled = SimilarityScore(0.5, 0.5, 0.5, 0, "embedder-x", "bert-score 0.3.13", 40, True, 0.515)
    results.update({r.key: rescaled for r in similarity})
    scores = induction.baseline_scores(instructions, assets, setting, results)
    assert scores["written|1"]["execution_accuracy"] == 1.0 and scores["written|2"]["reference_similarity"] == 0.5
    assert scores["written|2"]["similarity_rescaled"] is True and scores["written|2"]["similarity_baseline"] == 0.515
    assert (
        scores["written|2"]["similarity_layer"] == 40
        and scores["written|2"]["similarity_scorer"] == "bert-score 0.3.13"
    )
    assert scores["gold|antonyms|1"]["execution_accuracy"] == 0.5
    assert scores["gold|antonyms|2"]["execution_accuracy"] == 0.0 and scores["gold|antonyms|2"]["outputs"] == [
        " hot",
        " up",
    ]


def test_in_context_verification_solves_one_execute_input_from_the_five_demonstrations():
    definition = benchmarks.get("instruction_induction")
    demonstrations = [["hot", "cold"], ["up", "down"], ["big", "small"], ["old", "new"], ["wet", "dry"]]
    items = [
        ItemData(
            key=f"antonyms-00{n}",
            split="induce",
            gold="",
            meta={"task": "antonyms", "n": n},
            prompt={"task": "antonyms", "text": "...", "demonstrations": demonstrations},
        )
        for n in (1, 2, 3)
    ]
    assets = {
        "execute": {
            "antonyms": [{"input": "fast", "outputs": ["slow"]}, {"input": "light", "outputs": ["dark", "heavy"]}]
        }
    }
    setting = definition.model_setting({"mode": "in_context"})
    assert definition.model_setting_label(setting) == "in-context verification (5 demonstrations, no instruction)"
    asked = definition.model_requests(items, assets, setting, prior={})
    # no instruction: the demonstrations in the Input/Output format, then the prompt's own test input
    assert [r.prompt for r in asked] == [
        "Input: hot\nOutput: cold\n\nInput: up\nOutput: down\n\nInput: big\nOutput: small\n\n"
        f"Input: old\nOutput: new\n\nInput: wet\nOutput: dry\n\nInput: {x}\nOutput:"
        for x in ("fast", "light", "fast")
    ]
    assert all(isinstance(r, GenerationRequest) and r.max_new_tokens == 30 for r in asked)
    assert definition.model_requests(items, assets, setting, prior={r.key: None for r in asked}) == asked

    results = {asked[0].key: Generated(" Slow."), asked[1].key: Generated(" heavy"), asked[2].key: Generated(" quick")}
    answers = definition.model_answers(items, setting, results, assets=assets)
    assert [answers[item.key].scores["execution_accuracy"] for item in items] == [1.0, 1.0, 0.0]
    assert answers["antonyms-001"].answer == "slow" and answers["antonyms-001"].correct
    assert answers["antonyms-003"].scores["input"] == "fast" and not answers["antonyms-003"].correct
    with pytest.raises(ValueError, match="mode must be one of induce, in_context"):
        definition.model_setting({"mode": "zero-shot"})
