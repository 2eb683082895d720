"""An lm-evaluation-harness task imported as items, asked of a model by the engine, against the
harness itself (`lm_eval.simple_evaluate` with its HF model) on the same tiny model: the same
requests, log-likelihoods within 1e-4, the same acc and acc_norm; the same greedy generations."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import lm_eval  # noqa: F401  (a test dependency: missing, these tests fail rather than skip)
import pytest

from parity.benchmarks.lm_eval import records_for_task
from parity.benchmarks.lm_eval.tasks import HARNESS_FEWSHOT_SEED
from parity.engine import ChoiceRequest, Engine, GenerationRequest
from tests.paths import REPO

EXAMPLE = REPO / "parity" / "benchmarks" / "lm_eval" / "example"
CHOICE_TASK, GENERATION_TASK = "parity_example_mc", "parity_example_gen"


def harness_run(
    model_dir: Path, task: str, num_fewshot: int, add_bos: bool, monkeypatch: pytest.MonkeyPatch
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The harness's metrics and logged samples for `task`, run as `lm_eval --model hf --include_path
    EXAMPLE --tasks TASK --num_fewshot K --device cpu --batch_size 1 --log_samples` from EXAMPLE."""
    from lm_eval.tasks import TaskManager

    monkeypatch.chdir(EXAMPLE)
    out = lm_eval.simple_evaluate(
        model="hf",
        model_args=f"pretrained={model_dir},dtype=float32,add_bos_token={add_bos}",
        tasks=[task],
        task_manager=TaskManager(include_path=str(EXAMPLE), include_defaults=False),
        num_fewshot=num_fewshot,
        batch_size=1,
        device="cpu",
        log_samples=True,
        fewshot_random_seed=HARNESS_FEWSHOT_SEED,
    )
    return out["results"][task], sorted(out["samples"][task], key=lambda sample: sample["doc_id"])


def choice_metrics(records: list[dict[str, Any]], lls: list[list[float]]) -> tuple[float, float]:
    """acc and acc_norm as the harness computes them: the argmax of the log-likelihoods, raw and
    divided by each choice's length in characters, against the gold."""
    acc = norm = 0
    for record, values in zip(records, lls):
        gold = record["options"].index(record["gold"])
        normalised = [value / length for value, length in zip(values, record["lengths"])]
        acc += values.index(max(values)) == gold
        norm += normalised.index(max(normalised)) == gold
    return acc / len(records), norm / len(records)


@pytest.mark.parametrize("num_fewshot", [0, 2])
def test_choice_task_gives_the_harness_accuracy_from_the_same_requests(
    llama_dir: Path, tiny_lm: Any, num_fewshot: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    name, records = records_for_task(EXAMPLE / "example_mc.yaml", num_fewshot=num_fewshot)
    assert name == CHOICE_TASK and len(records) == 12
    metrics, samples = harness_run(llama_dir, CHOICE_TASK, num_fewshot, tiny_lm.add_bos, monkeypatch)

    # the records carry the harness's own requests, few-shot examples included
    for record, sample in zip(records, samples):
        assert record["lm_eval_doc_id"] == sample["doc_id"]
        assert [(record["model_context"], continuation) for continuation in record["continuations"]] == [
            tuple(arguments) for arguments in sample["arguments"]
        ]
    if num_fewshot:
        assert records[0]["model_context"].count("Question:") == num_fewshot + 1

    requests = [
        ChoiceRequest(record["id"], record["model_context"], tuple(record["continuations"])) for record in records
    ]
    results = Engine(tiny_lm).score_choices(requests)
    ours = [[score.logprob for score in result.scores] for result in results]
    for our, result, sample in zip(ours, results, samples):
        assert our == pytest.approx([float(loglik) for ((loglik, _),) in sample["resps"]], abs=1e-4)
        assert [score.is_greedy for score in result.scores] == [bool(greedy) for ((_, greedy),) in sample["resps"]]

    acc, acc_norm = choice_metrics(records, ours)
    print(
        f"\n{num_fewshot}-shot: harness acc={metrics['acc,none']} acc_norm={metrics['acc_norm,none']}; "
        f"engine acc={acc} acc_norm={acc_norm}"
    )
    assert acc == pytest.approx(metrics["acc,none"])
    assert acc_norm == pytest.approx(metrics["acc_norm,none"])
    assert [sample["acc"] for sample in samples] == [
        float(v.index(max(v)) == r["options"].index(r["gold"])) for r, v in zip(records, ours)
    ]


def test_generation_task_gives_the_harness_generations(
    llama_dir: Path, tiny_lm: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    name, records = records_for_task(EXAMPLE / "example_gen.yaml", num_fewshot=2)
    assert name == GENERATION_TASK and len(records) == 12
    metrics, samples = harness_run(llama_dir, GENERATION_TASK, 2, tiny_lm.add_bos, monkeypatch)

    requests = [
        GenerationRequest(
            record["id"], record["model_context"], record["max_tokens"], stop_at_newline="\n" in record["stop"]
        )
        for record in records
    ]
    ours = []
    for record, result in zip(records, Engine(tiny_lm).generate(requests)):
        cut = min(
            (index for stop in record["stop"] if (index := result.raw_text.find(stop)) >= 0),
            default=len(result.raw_text),
        )
        ours.append(result.raw_text[:cut])
    theirs = [sample["resps"][0][0] for sample in samples]
    assert [(record["model_context"], record["stop"], record["max_tokens"]) for record in records] == [
        (context, generation["until"], generation["max_gen_toks"])
        for ((context, generation),) in (sample["arguments"] for sample in samples)
    ]
    assert any(theirs) and ours == theirs
    # the task's filter strips the text (remove_whitespace), then exact_match compares it with the target
    assert [text.strip() for text in ours] == [sample["filtered_resps"][0] for sample in samples]
    exact = sum(text.strip() == record["gold"] for text, record in zip(ours, records)) / len(records)
    print(f"\ngeneration: harness exact_match={metrics['exact_match,strip']}; engine exact_match={exact}")
    assert exact == pytest.approx(metrics["exact_match,strip"])


@pytest.mark.parametrize("num_fewshot", [0, 2])
def test_the_imported_custom_items_answer_as_the_harness_scores(
    llama_dir: Path, tiny_lm: Any, num_fewshot: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The same, through the custom benchmark's own model side: items built from the records, its
    requests, its answers (correct: acc; correct_norm: acc_norm)."""
    from parity import benchmarks
    from parity.benchmarks import custom

    name, records = records_for_task(EXAMPLE / "example_mc.yaml", num_fewshot=num_fewshot)
    items = custom.items_from_records(records, name=name, label="example_mc.yaml").items
    metrics, _ = harness_run(llama_dir, CHOICE_TASK, num_fewshot, tiny_lm.add_bos, monkeypatch)
    definition = benchmarks.get("custom")
    setting = definition.model_setting()
    requests = definition.model_requests(items, {}, setting)
    results = {result.key: result for result in Engine(tiny_lm).score_choices(requests)}
    answers = definition.model_answers(items, setting, results)
    acc = sum(answers[item.key].correct for item in items) / len(items)
    acc_norm = sum(answers[item.key].scores["correct_norm"] for item in items) / len(items)
    print(
        f"\n{num_fewshot}-shot through custom: harness acc={metrics['acc,none']} "
        f"acc_norm={metrics['acc_norm,none']}; custom acc={acc} acc_norm={acc_norm}"
    )
    assert acc == pytest.approx(metrics["acc,none"])
    assert acc_norm == pytest.approx(metrics["acc_norm,none"])


def test_the_imported_generation_items_score_as_the_harness_scores(
    llama_dir: Path, tiny_lm: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Generation through the custom benchmark's model side: the same texts, and each item right
    exactly when the harness's exact_match says so (after its remove_whitespace filter)."""
    from parity import benchmarks
    from parity.benchmarks import custom

    name, records = records_for_task(EXAMPLE / "example_gen.yaml", num_fewshot=2)
    items = custom.items_from_records(records, name=name, label="example_gen.yaml").items
    _, samples = harness_run(llama_dir, GENERATION_TASK, 2, tiny_lm.add_bos, monkeypatch)
    definition = benchmarks.get("custom")
    setting = definition.model_setting()
    requests = definition.model_requests(items, {}, setting)
    results = {result.key: result for result in Engine(tiny_lm).generate(requests)}
    answers = definition.model_answers(items, setting, results)
    assert [answers[item.key].answer for item in items] == [sample["filtered_resps"][0] for sample in samples]
    assert [answers[item.key].correct for item in items] == [bool(sample["exact_match"]) for sample in samples]


@pytest.mark.parametrize(
    "options", [(), ("ignore_case",), ("ignore_punctuation",), ("ignore_case", "ignore_punctuation")]
)
def test_exact_match_is_the_harness_metric(options: tuple[str, ...]) -> None:
    """The items' exact_match against lm_eval's own exact_match on texts where case, punctuation,
    articles and spaces differ (SQuAD's normalisation would call most of them equal)."""
    from lm_eval.api.metrics import exact_match_hf_evaluate

    from parity.benchmarks.custom import scoring

    pairs = [
        ("Paris", "Paris"),
        ("paris", "Paris"),
        ("Paris.", "Paris"),
        ("the Paris", "Paris"),
        ("Paris ", "Paris"),
        ("PARIS!", "paris"),
        ("4", "4"),
        ("four", "4"),
        ("a-b", "ab"),
        ("", "x"),
    ]
    theirs = [
        exact_match_hf_evaluate(
            predictions=[prediction], references=[reference], **{option: True for option in options}
        )["exact_match"]
        for prediction, reference in pairs
    ]
    ours = [
        scoring.best_score(scoring.EXACT_MATCH, prediction, [reference], 0.0, options)
        for prediction, reference in pairs
    ]
    assert ours == theirs and 0 < sum(ours) < len(pairs)
