"""Inspect eval logs written by Inspect itself, and the custom items an Inspect task's import makes of
the same samples (the extra fields `parity.benchmarks.from_inspect.samples` names).

`write_log` runs `inspect_ai.eval` with Inspect's mock model, whose replies are given per question
(mockllm counts tokens with tiktoken, which downloads its encoding: every reply carries its usage so
nothing is counted); `rewrite_log` changes a written log through `inspect_ai.log.write_eval_log`."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from inspect_ai import Task, eval
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.log import EvalLog, read_eval_log, write_eval_log
from inspect_ai.model import ChatMessage, GenerateConfig, ModelOutput, ModelUsage, get_model
from inspect_ai.scorer import choice, match
from inspect_ai.solver import generate, multiple_choice

from parity.benchmarks.from_inspect.samples import fingerprint, letters

MC_TASK, TEXT_TASK = "capitals", "sums"
CAPITALS = ["Paris", "London", "Rome"]
MC = [
    Sample(id="france", input="Which city is the capital of France?", choices=CAPITALS, target="A"),
    Sample(id="uk", input="Which city is the capital of the United Kingdom?", choices=CAPITALS, target="B"),
    Sample(id=3, input="Which city is the capital of Italy?", choices=CAPITALS, target="C"),
]
TEXT = [
    Sample(id="two", input="What is 2 + 2? Reply with the number only.", target="4"),
    Sample(id="ten", input="What is 5 + 5? Reply with the number only.", target="10"),
]
#: what the mock model says to each question of MC: right, wrong, right
MC_REPLIES = {"France": "ANSWER: A", "United Kingdom": "ANSWER: C", "Italy": "ANSWER: C"}


def records(samples: Sequence[Sample], task: str) -> list[dict[str, str]]:
    """The custom records an import of `task` writes for `samples`: a choice item's options lettered
    as Inspect shows them, its gold the target's option; a text item's gold the target."""
    made = []
    for sample in samples:
        assert isinstance(sample.input, str) and isinstance(sample.target, str)
        extra = {
            "inspect_task": task,
            "inspect_sample_id": str(sample.id),
            "inspect_fingerprint": fingerprint(sample.input, sample.choices, sample.target),
        }
        if sample.choices:
            shown = letters(len(sample.choices))
            options = [f"{letter}) {text}" for letter, text in zip(shown, sample.choices)]
            made.append(
                {
                    "id": str(sample.id),
                    "text": sample.input,
                    "kind": "choice",
                    "options": "|".join(options),
                    "gold": options[shown.index(sample.target)],
                    "inspect_letters": "|".join(shown),
                    **extra,
                }
            )
        else:
            made.append(
                {"id": str(sample.id), "text": sample.input, "kind": "short_text", "gold": sample.target, **extra}
            )
    return made


def _output(text: str) -> ModelOutput:
    output = ModelOutput.from_content("mockllm/model", text)
    output.usage = ModelUsage(input_tokens=10, output_tokens=2, total_tokens=12)
    return output


def mock_model(replies: Mapping[str, str | Sequence[str]]) -> Any:
    """Inspect's mock model answering each question by a word it holds: a text, or one text per
    time it is asked (in turn: an eval of several epochs)."""
    turns: dict[str, list[str]] = {}

    def reply(messages: list[ChatMessage], tools: Any, tool_choice: Any, config: GenerateConfig) -> ModelOutput:
        asked = messages[-1].text
        for word, said in replies.items():
            if word in asked:
                if isinstance(said, str):
                    return _output(said)
                done = turns.setdefault(word, [])
                done.append(said[len(done) % len(said)])
                return _output(done[-1])
        return _output("I do not know.")

    return get_model("mockllm/model", custom_outputs=reply)


def write_log(
    folder: Path,
    samples: Sequence[Sample],
    replies: Mapping[str, str | Sequence[str]],
    *,
    task: str = MC_TASK,
    epochs: int = 1,
    **options: Any,
) -> Path:
    """The log Inspect writes for `task` over `samples` (multiple_choice and choice for samples with
    choices, generate and match otherwise), the mock model answering `replies`."""
    chosen = bool(samples[0].choices)
    run = Task(
        dataset=MemoryDataset(list(samples), name=f"{task}-data"),
        solver=multiple_choice() if chosen else generate(),
        scorer=choice() if chosen else match(),
        name=task,
    )
    # Inspect starts an event loop of its own: in a thread of its own, beside any the test's process
    # runs (Playwright's, once a browser test has run in it)
    with ThreadPoolExecutor(max_workers=1) as thread:
        (log,) = thread.submit(
            eval,
            run,
            model=mock_model(replies),
            log_dir=str(folder),
            display="none",
            epochs=epochs,
            max_samples=1,
            **options,
        ).result()
    return Path(log.location)


def rewrite_log(path: Path, change: Callable[[EvalLog], None], name: str) -> Path:
    """`path`'s log changed by `change`, written by Inspect beside it as `name`."""
    log = read_eval_log(str(path))
    change(log)
    out = path.with_name(name)
    write_eval_log(log, str(out))
    return out
