"""What a model reads for one item: the exact texts a run sends to the engine, for auditing a protocol.

The requests are built by the run's own path (`modelruns.shard_answers.RequestInputs`, which calls the
benchmark's `model_requests`), for the item's group: the items a run scores together (an AmbiBench
episode is one text that reads every position's label), as `modelrun_start` cuts a study into
shards. Nothing is scored. A benchmark that asks later requests from earlier answers (instruction
induction executes the instruction a model wrote) shows its first stage only: the rest needs a model.

`manage.py show_prompt` prints these; the results page's item view shows them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from annotation.models import Item
from annotation.selectors import item_data
from modelruns import selectors
from modelruns.shard_answers import request_inputs
from parity import benchmarks
from parity.benchmarks.base import MODEL_KINDS, PairRequest, SimilarityRequest
from parity.benchmarks.custom.model import IMPORTED_SETTINGS
from parity.engine.requests import ChoiceRequest, GenerationRequest, MultiReadRequest
from studies.models import Study

#: characters of the text shown before a read's offset, to say where it reads
READ_CONTEXT = 60


class PromptError(ValueError):
    """The item, setting or kind asked for does not exist or does not fit the benchmark; the message says why."""


@dataclass(frozen=True)
class ScoredText:
    """One text exactly as the engine reads it, and the part at its end whose log-probability is read
    (a choice's continuation; "" where the whole text is read as it is)."""

    text: str
    continuation: str = ""

    @property
    def context(self) -> str:
        """The text before its continuation."""
        return self.text[: len(self.text) - len(self.continuation)]


@dataclass(frozen=True)
class ReadPoint:
    """A MultiReadRequest's read: at character `offset` of the text, each candidate's log-probability."""

    number: int
    offset: int
    before: str  # the text just before the offset, to say where the read is
    candidates: tuple[str, ...]


@dataclass(frozen=True)
class PromptView:
    """One engine request, as texts."""

    key: str
    kind: str  # choice, multi_read, generation, nli_pair, similarity
    how: str  # what the engine does with the texts, in words
    texts: tuple[ScoredText, ...]
    reads: tuple[ReadPoint, ...] = ()
    request: Any = None


@dataclass(frozen=True)
class ItemPrompts:
    benchmark: str
    item_key: str
    #: the item as stored: what a person is shown (`prompt`) and the right answer (`gold`)
    prompt: Mapping[str, Any]
    gold: str
    position: int  # the item's place (from 1) in the items the prompts were looked up in
    n_items: int
    setting: Mapping[str, Any]
    setting_label: str
    kind: str
    group: list[str]  # the item keys scored together with this one (itself included)
    prompts: list[PromptView] = field(default_factory=list)


def view_of(request: Any) -> PromptView:
    """An engine request as the texts it makes the engine read."""
    if isinstance(request, ChoiceRequest):
        return PromptView(
            request.key,
            "choice",
            "each continuation's log-probability is read after the same context; every text below is the "
            "context followed by one continuation",
            tuple(ScoredText(request.context + continuation, continuation) for continuation in request.continuations),
            request=request,
        )
    if isinstance(request, MultiReadRequest):
        reads = tuple(
            ReadPoint(
                number, read.offset, request.text[max(0, read.offset - READ_CONTEXT) : read.offset], read.candidates
            )
            for number, read in enumerate(request.reads, start=1)
        )
        return PromptView(
            request.key,
            "multi_read",
            f"one pass over the text; at each of its {len(reads)} reads every candidate's log-probability is read",
            (ScoredText(request.text),),
            reads,
            request=request,
        )
    if isinstance(request, GenerationRequest):
        stop = ", cut at the end of its first line" if request.stop_at_newline else ""
        return PromptView(
            request.key,
            "generation",
            f"greedy continuation of the prompt, at most {request.max_new_tokens} new tokens{stop}",
            (ScoredText(request.prompt),),
            request=request,
        )
    if isinstance(request, PairRequest):
        return PromptView(
            request.key,
            "nli_pair",
            "an NLI cross-encoder reads the premise (first) and the hypothesis (second)",
            (ScoredText(request.premise), ScoredText(request.hypothesis)),
            request=request,
        )
    if isinstance(request, SimilarityRequest):
        return PromptView(
            request.key,
            "similarity",
            f"{request.model} embeds the candidate (first) and each reference",
            (ScoredText(request.candidate), *(ScoredText(reference) for reference in request.references)),
            request=request,
        )
    raise TypeError(f"no view of a {type(request).__name__}")


def _find(items: Sequence[Item], item: str) -> int:
    """The index of the item named by key or, failing that, by its place from 1."""
    for index, candidate in enumerate(items):
        if candidate.key == item:
            return index
    text = item.strip()
    if text.isdigit() and 1 <= int(text) <= len(items):
        return int(text) - 1
    if text.isdigit():
        raise PromptError(f"no item at position {text}: there are {len(items)} (1 to {len(items)})")
    raise PromptError(f"no item with the key {item!r}")


def _candidates(study: Study | None, benchmark: str) -> list[Item]:
    """The items an item is looked up in: a study's, as its runs score them, or the benchmark's."""
    if study is not None:
        return selectors.study_items(study)
    return list(Item.objects.filter(benchmark=benchmark, is_attention_check=False).order_by("split", "key"))


def item_prompts(
    *,
    item: str,
    study: Study | None = None,
    benchmark: str = "",
    setting: Mapping[str, Any] | None = None,
    kind: str = "causal",
) -> ItemPrompts:
    """The texts a model of `kind` reads for `item` (a key, or a place from 1 in the study's items as
    its runs score them, or in the benchmark's by split and key) under `setting` (the benchmark's
    default setting with these overrides; strings are read as a command line gives them)."""
    name = study.benchmark if study is not None else benchmark
    try:
        definition = benchmarks.get(name)
    except KeyError as exc:
        raise PromptError(str(exc.args[0])) from None
    if definition.model_module is None:
        raise PromptError(f"{definition.title} has no model side: no model reads its items")
    if kind not in MODEL_KINDS or kind not in definition.model_kinds:
        raise PromptError(f"{definition.title} is scored with {' or '.join(definition.model_kinds)} models, not {kind}")
    # a run imported from lm-evaluation-harness or Inspect answered the items' own prompts (as the
    # harness or the task's solvers built them)
    setting = {key: value for key, value in (setting or {}).items() if key not in IMPORTED_SETTINGS}
    try:
        full = definition.model_setting(setting)
    except ValueError as exc:
        raise PromptError(str(exc)) from None
    items = _candidates(study, name)
    if not items:
        where = f"study {study.name!r}" if study is not None else f"benchmark {name!r}"
        raise PromptError(f"{where} has no items")
    index = _find(items, item)
    chosen = items[index]
    # the item's group (an AmbiBench episode) among the items a run would score beside it, as
    # `modelrun_start` cuts shards: a run never splits a group
    peers = items if study is not None else [other for other in items if other.split == chosen.split]
    groups = definition.model_groups([item_data(other) for other in peers], full)
    group = next((keys for keys in groups if chosen.key in keys), [chosen.key])
    by_key = {other.key: other for other in peers}
    try:
        requests = request_inputs(name, [by_key[key] for key in group], full, kind).requests({})
    except ValueError as exc:  # a template or the k-shot pool not imported, too few examples
        raise PromptError(str(exc)) from None
    return ItemPrompts(
        benchmark=name,
        item_key=chosen.key,
        prompt=chosen.prompt,
        gold=chosen.gold,
        position=index + 1,
        n_items=len(items),
        setting=full,
        setting_label=definition.model_setting_label(full),
        kind=kind,
        group=list(group),
        prompts=[view_of(request) for request in requests],
    )
