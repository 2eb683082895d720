from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from modelruns.models import ModelRun
from modelruns.run_comparison import DEFAULT_TOLERANCE, ItemComparison, StoredAnswer, runs_compare, shards_by_host


def _shown(answer: StoredAnswer | None, width: int = 24) -> str:
    if answer is None:
        return "—"
    text = " ".join(answer.answer.split()) or "(invalid)"
    return text if len(text) <= width else text[: width - 1] + "…"


def _correct(item: ItemComparison) -> str:
    return "/".join("—" if side is None else ("yes" if side.correct else "no") for side in (item.left, item.right))


class Command(BaseCommand):
    help = (
        "Compare two model runs' stored answers item by item (answer, validity, correctness and scores, "
        "the scores up to --tolerance) and print each item; fails when any differs. Each run's line says "
        "which hosts scored its shards."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("left", type=int, help="a run's id")
        parser.add_argument("right", type=int, help="another run's id")
        parser.add_argument("--tolerance", type=float, default=DEFAULT_TOLERANCE, help="largest score difference")

    def handle(self, *args: Any, **options: Any) -> None:
        runs = ModelRun.objects.select_related("study", "spec").in_bulk([options["left"], options["right"]])
        missing = [pk for pk in (options["left"], options["right"]) if pk not in runs]
        if missing:
            raise CommandError(f"no model run {missing[0]}")
        left, right = runs[options["left"]], runs[options["right"]]
        for run in (left, right):
            hosts = ", ".join(f"{host} {count}" for host, count in shards_by_host(run).items()) or "none"
            self.stdout.write(
                f"run {run.pk}: {run.spec.name} on {run.study.name!r}, {run.get_status_display().lower()}, "
                f"{run.shards.count()} shards; shards done by host: {hosts}"
            )
        comparison = runs_compare(left, right, tolerance=options["tolerance"])
        names = f"{'run ' + str(left.pk):<24} {'run ' + str(right.pk):<24}"
        self.stdout.write(f"{'item':<28} {names} correct  score Δ  same")
        for item in comparison.items:
            key = f"{item.item_key}{'/' + item.variant if item.variant else ''}"
            self.stdout.write(
                f"{key:<28} {_shown(item.left):<24} {_shown(item.right):<24} {_correct(item):<8} "
                f"{item.score_difference:<7.1g} {'yes' if item.same else 'NO: ' + ', '.join(item.differences)}"
            )
        summary = (
            f"{len(comparison.items)} items, largest score difference {comparison.largest_score_difference:.3g} "
            f"(tolerance {comparison.tolerance:g})"
        )
        if not comparison.items:
            raise CommandError("neither run has a stored answer")
        if not comparison.same:
            raise CommandError(f"the runs differ: {len(comparison.different)} of {summary}")
        self.stdout.write(f"the same answers: {summary}")
