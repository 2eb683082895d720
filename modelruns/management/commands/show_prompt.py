from __future__ import annotations

import json
from dataclasses import asdict
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from modelruns.forms import parse_setting_pairs
from modelruns.management.options import study_named
from modelruns.prompts import ItemPrompts, PromptError, PromptView, item_prompts
from parity.benchmarks.base import MODEL_KINDS


class Command(BaseCommand):
    help = (
        "Print the exact texts a model reads for one item under a setting, built as a run builds them: "
        "for a choice, every option's full text (the context and its continuation); for a generation, the "
        "prompt; for an AmbiBench episode, the text and where it reads the labels. Nothing is scored. "
        "--item is an item key, or a position from 1 (in the study's items as its runs score them; with "
        "--benchmark, in the benchmark's items by split and key)."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        where = parser.add_mutually_exclusive_group(required=True)
        where.add_argument("--study", help="the study's name (or id)")
        where.add_argument("--benchmark", help="a benchmark's key, e.g. implicature: its imported items")
        parser.add_argument("--item", required=True, help="an item key, or a position from 1")
        parser.add_argument(
            "--setting",
            nargs="+",
            action="extend",
            default=[],
            metavar="KEY=VALUE",
            help="the benchmark's model setting, e.g. template=2 k=1 (the rest: its defaults)",
        )
        parser.add_argument("--kind", default="causal", choices=MODEL_KINDS, help="the kind of model that reads it")
        parser.add_argument("--json", action="store_true", help="one JSON object: the setting and each request")

    def handle(self, *args: Any, **options: Any) -> None:
        study = study_named(options["study"]) if options["study"] else None
        try:
            found = item_prompts(
                item=options["item"],
                study=study,
                benchmark=options["benchmark"] or "",
                setting=parse_setting_pairs(options["setting"]),
                kind=options["kind"],
            )
        except (PromptError, ValueError) as exc:
            raise CommandError(str(exc)) from exc
        if options["json"]:
            self.stdout.write(json.dumps(_as_json(found), ensure_ascii=False))
            return
        self.stdout.write(_as_text(found, study.name if study else ""), ending="")


def _as_json(found: ItemPrompts) -> dict[str, Any]:
    payload = asdict(found)
    for prompt, view in zip(payload["prompts"], found.prompts):
        prompt["request"] = {"type": type(view.request).__name__, **asdict(view.request)}
    return payload


def _as_text(found: ItemPrompts, study: str) -> str:
    where = f"study {study!r}" if study else f"benchmark {found.benchmark!r}"
    lines = [
        f"{where} ({found.benchmark}), item {found.position} of {found.n_items}: {found.item_key}",
        f"setting: {found.setting_label} {json.dumps(dict(found.setting), sort_keys=True)}; a {found.kind} model",
    ]
    if len(found.group) > 1:
        lines.append(f"scored together with {len(found.group) - 1} other item(s) of its group, in one request")
    for number, view in enumerate(found.prompts, start=1):
        lines += _view_lines(view, number, len(found.prompts))
    return "\n".join(lines) + "\n"


def _view_lines(view: PromptView, number: int, total: int) -> list[str]:
    """The texts between marker lines, verbatim; continuations and candidates as Python literals, so
    their spaces show."""
    lines = ["", f"=== request {number} of {total}: {view.key} ({view.kind}): {view.how}"]
    for index, scored in enumerate(view.texts, start=1):
        head = f"--- text {index} of {len(view.texts)}"
        if scored.continuation:
            head += f", continuation {scored.continuation!r} (its last {len(scored.continuation)} characters)"
        lines += [head + " ---", scored.text, "--- end of text ---"]
    for read in view.reads:
        candidates = ", ".join(repr(candidate) for candidate in read.candidates)
        lines.append(f"read {read.number} at character {read.offset}, after {read.before!r}: {candidates}")
    return lines
