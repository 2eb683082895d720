from __future__ import annotations

from decimal import Decimal
from pathlib import Path
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.core.validators import URLValidator
from django.utils.translation import ngettext

from parity import benchmarks, panels
from parity.stats.power import describe
from studies.design.estimates import MAX_MINUTES
from studies.design.pay import hourly_pay
from studies.design.screening import SELECTS, Screening
from studies.errors import StudyError
from studies.models import Study
from studies.setup import validation
from studies.setup.studies import study_create
from studies.setup.validation import REPORTING_FIELDS


class Command(BaseCommand):
    help = "Create a live study from imported items; prints the participant link as its last line."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--benchmark", required=True, choices=sorted(benchmarks.REGISTRY))
        parser.add_argument("--name", required=True)
        parser.add_argument("--units", type=int, help="number of units (implicature default 4)")
        parser.add_argument("--per-unit", type=int, help="complete participants per unit (default 5)")
        parser.add_argument("--unit-size", type=int, help="items per unit (implicature default 150)")
        parser.add_argument("--attention-checks", type=int, help="attention checks per participant (default 3)")
        parser.add_argument("--exclude-at", type=int, help="excluded at this many failed checks (default 2)")
        parser.add_argument("--template", type=int, help="template shown to humans (implicature default 2)")
        parser.add_argument(
            "--public-title",
            default="",
            help="what participants see as the study's title (their browser tab, the welcome page); "
            "--name is for researchers only",
        )
        parser.add_argument("--group", default="", help="refuse participants who took a study of this group")
        parser.add_argument(
            "--set",
            action="append",
            default=[],
            metavar="KEY=VALUE",
            help="any other design setting of the benchmark (repeatable)",
        )
        parser.add_argument("--draft", action="store_true", help="create as draft instead of live")
        parser.add_argument(
            "--owner",
            metavar="USERNAME",
            help="the researcher who sees and acts on the study (without one: superusers only)",
        )
        parser.add_argument(
            "--pid-format",
            choices=list(Study.PidFormat.values),
            default=Study.PidFormat.PROLIFIC,
            help="what a PROLIFIC_PID must look like: 'prolific' (24 hex characters, the default) "
            "or 'token' (any 1-64 letters, digits, '-' or '_', for pilots and other recruiters)",
        )
        parser.add_argument(
            "--panel",
            choices=list(panels.PANELS),
            default=panels.PROLIFIC,
            help="where participants come from (default prolific): connect, mturk, sona or lab (docs/panels.md)",
        )
        parser.add_argument(
            "--panel-setting",
            action="append",
            default=[],
            metavar="KEY=VALUE",
            help="the panel's own settings (repeatable): complete_url and partial_url (connect), credit_url (sona), "
            "sandbox=true (mturk)",
        )
        parser.add_argument(
            "--language",
            choices=[code for code, _ in settings.LANGUAGES],
            default="en",
            help="the language of the participant pages (default en)",
        )
        parser.add_argument(
            "--min-answer-ms",
            type=int,
            help="refuse as unread an answer sooner than this many milliseconds after its item was shown "
            "(default: the MIN_ANSWER_MS setting, 600; 0: no floor, e.g. for scripted load tests)",
        )
        parser.add_argument(
            "--explanations",
            choices=list(Study.Explanations.values),
            default=Study.Explanations.OFF,
            help="ask participants why they answered (optional for them, stored with the answer): off (default), "
            "nth (after every --explanation-every-th item of each sequence), every (after every item), "
            "end (one closing question)",
        )
        parser.add_argument("--explanation-every", type=int, default=5, metavar="N", help="N for nth (default 5)")
        parser.add_argument(
            "--explanation-prompt",
            default="",
            help="the box's label (default: 'Why did you choose this answer?' in the study's language)",
        )

        parser.add_argument("--population", default="", help="the population the human baseline stands for")
        parser.add_argument("--ethics-body", default="", help="the ethics board that reviewed the study")
        parser.add_argument("--ethics-reference", default="", help="the approval's reference")
        parser.add_argument(
            "--ethics-exemption", default="", metavar="REASON", help="why the study was exempt from ethics review"
        )
        parser.add_argument("--paper-title", default="", help="the paper the study is for (optional)")
        parser.add_argument("--paper-url", default="", help="a link to the paper (optional)")
        parser.add_argument("--paper-venue", default="", help="where the paper appears (optional)")
        parser.add_argument("--age-min", type=int, help="Prolific prescreening: youngest age")
        parser.add_argument("--age-max", type=int, help="Prolific prescreening: oldest age")
        for name, words in (
            ("sex", "sex"),
            ("first-languages", "first language"),
            ("fluent-languages", "fluent languages"),
            ("countries", "country of residence"),
        ):
            parser.add_argument(
                f"--{name}", default="", metavar="IDS", help=f"Prolific's choice ids of {words}, by commas"
            )
        parser.add_argument("--approval-rate-min", type=int, help="Prolific prescreening: lowest approval rate (%%)")
        parser.add_argument(
            "--exclude-earlier",
            action="store_true",
            help="Prolific refuses the participants of the owner's earlier studies created on Prolific",
        )
        parser.add_argument(
            "--sample",
            choices=list(Study.Sampling.values),
            default=Study.Sampling.ALL,
            help="the items: all (default, in file order), a random subset, or one stratified by category: in "
            "proportion to each category's share (stratified) or so with one of each category first (stratified_each)",
        )
        parser.add_argument("--sample-size", type=int, help="items to draw for a subset")
        parser.add_argument("--seed", type=int, help="the seed the subset is drawn with (default: one is drawn)")
        parser.add_argument(
            "--practice",
            type=Path,
            metavar="FILE",
            help="practice questions shown with feedback before the items (a text file; docs/researchers.md)",
        )
        parser.add_argument(
            "--comprehension",
            type=Path,
            metavar="FILE",
            help="a comprehension check of the instructions, in the same format, passed before the items",
        )
        parser.add_argument(
            "--practice-drawn",
            type=int,
            metavar="N",
            help="instead of --practice: N practice questions drawn from the benchmark's own practice items "
            "(implicature: its dev set) with the study's seed",
        )
        parser.add_argument("--comprehension-tries", type=int, default=2, help="tries at the check (default 2)")
        parser.add_argument(
            "--minutes",
            type=int,
            help="the estimated completion time Prolific shows (default: estimated from the design)",
        )
        parser.add_argument(
            "--reward",
            type=Decimal,
            metavar="POUNDS",
            help="the reward in pounds, e.g. 4.95 (default: Prolific's recommended £9/h for the time); "
            "a reward under the £6/h minimum, at the time or at the design's estimate when longer, is refused",
        )

    def handle(self, *args, **options) -> None:
        owner = None
        if options["owner"]:
            owner = get_user_model().objects.filter(username=options["owner"]).first()
            if owner is None:
                raise CommandError(f"--owner {options['owner']!r}: no user has this username")
        design = {
            "units": options["units"],
            "per_unit": options["per_unit"],
            "unit_size": options["unit_size"],
            "attention_checks": options["attention_checks"],
            "exclude_at": options["exclude_at"],
            "template": options["template"],
        }
        for pair in options["set"]:
            key, sep, value = pair.partition("=")
            if not sep:
                raise CommandError(f"--set {pair!r}: expected KEY=VALUE")
            design[key] = int(value) if value.lstrip("-").isdigit() else value
        floor = {} if options["min_answer_ms"] is None else {"min_answer_ms": options["min_answer_ms"]}
        if options["reward"] is not None and options["reward"] <= 0:
            raise CommandError(f"--reward {options['reward']}: give the reward in pounds, more than 0")
        if options["minutes"] is not None and not 1 <= options["minutes"] <= MAX_MINUTES:
            raise CommandError(f"--minutes {options['minutes']}: give 1 to {MAX_MINUTES} minutes")
        reward_pence = None if options["reward"] is None else int(options["reward"] * 100)
        if validation.reporting_problems(
            ethics_body=options["ethics_body"], ethics_reference=options["ethics_reference"]
        ):
            # the form's rule, said in the command's words
            raise CommandError("--ethics-reference: name the body that gave it with --ethics-body")
        reporting = {key: options[key] for key in REPORTING_FIELDS}
        if reporting["paper_url"]:
            try:
                URLValidator()(reporting["paper_url"])
            except ValidationError as exc:
                raise CommandError(f"--paper-url {reporting['paper_url']!r}: not a link") from exc
        try:
            study = study_create(
                name=options["name"],
                benchmark=options["benchmark"],
                design=design,
                group=options["group"],
                public_title=options["public_title"],
                status="draft" if options["draft"] else "live",
                owner=owner,
                pid_format=options["pid_format"],
                panel=options["panel"],
                panel_settings=_panel_settings(options["panel_setting"]),
                language=options["language"],
                estimated_minutes=options["minutes"],
                reward_pence=reward_pence,
                **reporting,
                **floor,
                prolific_filters=_screening(options),
                item_sampling=options["sample"],
                explanations=options["explanations"],
                explanation_every=options["explanation_every"],
                explanation_prompt=options["explanation_prompt"],
                sample_size=options["sample_size"],
                **({} if options["seed"] is None else {"sample_seed": options["seed"]}),
                **_training(options),
            )
        except StudyError as exc:
            raise CommandError(str(exc)) from exc
        units, per_unit, checks = study.units.count(), study.design.get("per_unit"), study.attention_checks
        shape = ngettext("%(n)d unit", "%(n)d units", units) % {"n": units}
        if per_unit is not None:
            shape += " × " + ngettext("%(n)d participant", "%(n)d participants", per_unit) % {"n": per_unit}
        shape += ", " + ngettext("%(n)d attention check", "%(n)d attention checks", checks) % {"n": checks}
        self.stdout.write(f"Created study {study.name!r} ({study.benchmark}): {shape}")
        pay = hourly_pay(study.reward_pence, study.estimated_minutes, study.panel)
        symbol = panels.SYMBOLS[pay.currency]
        self.stdout.write(
            f"Time and reward: {study.estimated_minutes} min, {symbol}{study.reward_pence / 100:.2f} ({pay})"
        )
        self.stdout.write(describe(study.power_analysis))
        self.stdout.write(study.participant_url())


def _training(options: dict) -> dict:
    """The practice and comprehension questions read from their files, parsed by the service."""
    given = {"comprehension_tries": options["comprehension_tries"], "practice_drawn": options["practice_drawn"]}
    for option, field in (("practice", "practice_questions"), ("comprehension", "comprehension_questions")):
        path = options[option]
        if path is None:
            continue
        try:
            given[field] = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise CommandError(f"--{option} {path}: cannot be read ({exc})") from exc
    return given


def _screening(options: dict) -> dict:
    """The prescreening given (`studies.design.screening.Screening`), checked by the service."""
    lists = {key: [v.strip() for v in options[key].split(",") if v.strip()] for key in SELECTS}
    return Screening(
        age_min=options["age_min"],
        age_max=options["age_max"],
        approval_rate_min=options["approval_rate_min"],
        exclude_earlier=options["exclude_earlier"],
        **lists,
    ).to_json()


def _panel_settings(pairs: list[str]) -> dict[str, Any]:
    """--panel-setting KEY=VALUE pairs; sandbox read as true or false."""
    found: dict[str, Any] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or key not in panels.SETTING_LABELS:
            raise CommandError(
                f"--panel-setting {pair!r}: give KEY=VALUE, KEY one of {', '.join(panels.SETTING_LABELS)}"
            )
        found[key] = value.lower() in ("1", "true", "yes") if key == "sandbox" else value
    return found
