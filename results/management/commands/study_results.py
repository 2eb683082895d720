from __future__ import annotations

import json

from django.core.management.base import BaseCommand, CommandError, CommandParser

from parity.stats.intervals import CI_METHOD_LABELS, CONFIDENCE_SEQUENCE, T_INTERVAL
from results.forms import ResultFilters, ResultsFilterForm
from results.pipeline import results_compute, results_data, review_signals_keep
from results.presenting.table_writers import to_markdown
from results.presenting.tables import paper_tables
from studies.models import Study


class Command(BaseCommand):
    help = (
        f"A study's results: human accuracy (mean, best, worst, and its 95% CI: the "
        f"{CI_METHOD_LABELS[T_INTERVAL]}, or for a study recruited until its interval was narrow enough the "
        f"{CI_METHOD_LABELS[CONFIDENCE_SEQUENCE]}), agreement (Cohen's kappa, Fleiss, Krippendorff), per unit, "
        "every finished model run beside the humans, and the breakdowns. --json prints one JSON object "
        "(fractions in [0, 1], null where undefined)."
    )

    # a read: the system checks would import every view (and the charts' matplotlib) for nothing
    requires_system_checks: list[str] = []

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("name", help="the study's name")
        parser.add_argument("--json", action="store_true", help="print one JSON object instead of tables")
        for name in ("unit", "category", "model", "setting"):
            parser.add_argument(f"--{name}", help=f"only this {name} (as on the results page)")
        parser.add_argument(
            "--flagged",
            choices=["include", "exclude"],
            help="with (default) or without the participants flagged for review (docs/integrity.md)",
        )

    def handle(self, *args, name: str, json: bool, **options) -> None:
        study = Study.objects.filter(name=name).first()
        if study is None:
            known = ", ".join(Study.objects.order_by("name").values_list("name", flat=True)[:20])
            raise CommandError(f"no study named {name!r}; known: {known or 'none'}")
        data = results_data(study)
        given = {key: options[key] for key in ("unit", "category", "model", "setting", "flagged") if options.get(key)}
        form = ResultsFilterForm(given, data_for=data)
        if not form.is_valid():
            problems = "; ".join(f"--{field}: {' '.join(map(str, errors))}" for field, errors in form.errors.items())
            raise CommandError(problems)
        filters: ResultFilters = form.filters()
        # the flags before the numbers: the filter on flagged participants reads them (when asked)
        review_signals_keep(study, data)
        results = results_compute(data, filters)
        if json:
            self.stdout.write(_dumps(results.to_json()))
        else:
            self.stdout.write(to_markdown(results, paper_tables(results)))


def _dumps(results: dict) -> str:
    return json.dumps(results, ensure_ascii=False, allow_nan=False)
