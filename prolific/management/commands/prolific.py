from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.utils.translation import ngettext

from prolific.bonuses import bonus_amounts, bonus_batch_confirm, prolific_bonuses_pay
from prolific.client import ProlificError
from prolific.currency import money
from prolific.models import ProlificHookSecret, ProlificStudy
from prolific.recruitment import prolific_recruit_configure, recruitment_step
from prolific.review import prolific_review, review_plan
from prolific.services import (
    TRANSITIONS,
    ProlificStudyError,
    prolific_places_raise,
    prolific_study_configure,
    prolific_study_create,
    prolific_study_transition,
    prolific_sync,
)
from prolific.subscriptions import prolific_hooks_subscribe
from studies.models import Study

ACTIONS = ("create", *TRANSITIONS, "places", "sync", "recruit", "review", "bonuses", "hooks")


class Command(BaseCommand):
    help = (
        "Run a study on Prolific: create (a draft), publish, pause, start, stop, places (raise), sync (pull "
        "the submissions; every study when none is named), recruit (raise the places in steps until the target "
        "is met, then stop; every study with a target when none is named; sync runs it too), review (approve / "
        "reject), bonuses (pay, exactly once), hooks (subscribe a webhook URL)."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("action", choices=ACTIONS)
        parser.add_argument("study", nargs="?", help="the study's name (for hooks: the webhook URL)")
        parser.add_argument(
            "--places",
            type=int,
            help="create: places to offer (default: the units' capacity); places: the new, higher total",
        )
        parser.add_argument(
            "--per-correct",
            type=int,
            help="bonuses: set the rule, per correct answer, in the workspace currency's smallest unit (pence, cents)",
        )
        parser.add_argument(
            "--reject-excluded",
            choices=["yes", "no"],
            help="review: reject excluded participants where Prolific allows it (yes) or approve them",
        )
        parser.add_argument(
            "--confirm",
            choices=["paid", "unpaid"],
            help="bonuses: what Prolific shows for a bulk bonus whose pay answer was lost",
        )
        parser.add_argument(
            "--target",
            choices=["ci_width", "per_unit", "none"],
            help="recruit: set the target (ci_width: the 95%% interval of human accuracy at most --value points "
            "wide, by --rule; per_unit: --value completions in every unit; none: clear it)",
        )
        parser.add_argument(
            "--rule",
            choices=["planned_looks", "confidence_sequence"],
            help="recruit: how a ci_width target is met (planned_looks, the default for a new study: fewer "
            "participants, valid only if the study stops at its looks; confidence_sequence: valid whenever it stops)",
        )
        parser.add_argument("--value", type=float, help="recruit: the target's value")
        parser.add_argument("--step", type=int, help="recruit: places added per raise")
        parser.add_argument(
            "--max-spend",
            type=int,
            help="recruit: the most spent on rewards, in the workspace currency's smallest unit (pence, cents)",
        )
        parser.add_argument(
            "--new-secret",
            action="store_true",
            help="hooks: replace the workspace's signing secret (the old one is accepted for 24 more hours)",
        )
        parser.add_argument(
            "--dry-run",
            action="store_true",
            help="bonuses: list the amounts, pay nothing; review: list each decision and its message, send nothing",
        )

    def handle(self, *args, action: str, study: str | None, **options) -> None:
        try:
            self.stdout.write(self._run(action, study, options))
        except (ProlificError, ProlificStudyError) as exc:
            raise CommandError(str(exc)) from exc

    def _study(self, name: str | None) -> Study:
        found = Study.objects.filter(name=name).first() if name else None
        if found is None:
            raise CommandError(f"no study named {name!r}" if name else "name the study")
        return found

    def _prolific(self, name: str | None) -> ProlificStudy:
        study = self._study(name)
        found = ProlificStudy.objects.select_related("study").filter(study=study).first()
        if found is None:
            raise CommandError(f"{study.name!r} has no Prolific study: run `manage.py prolific create` first")
        return found

    def _run(self, action: str, name: str | None, options: dict) -> str:
        if action == "hooks":
            if not name:
                raise CommandError("give the webhook URL, e.g. https://parity.example.org/prolific/hooks/")
            hooks = prolific_hooks_subscribe(target_url=name, new_secret=options["new_secret"])
            said = []
            if hooks.subscribed:
                said.append(
                    f"Subscribed {name} to {' and '.join(hooks.subscribed)} and confirmed "
                    + ngettext("the subscription (enabled)", "both subscriptions (enabled)", len(hooks.subscribed))
                )
            if hooks.reused:
                said.append(f"kept the enabled subscriptions of {name} to {' and '.join(hooks.reused)}")
            if hooks.replaced:
                said.append(
                    ngettext("deleted %(n)d disabled one first", "deleted %(n)d disabled ones first", hooks.replaced)
                    % {"n": hooks.replaced}
                )
            said.append(
                "a new signing secret is stored (the ones it replaces are accepted for 24 more hours)"
                if hooks.secret_made and ProlificHookSecret.objects.count() > 1
                else "the signing secret is stored"
                if hooks.secret_made
                else "the stored signing secret is kept"
            )
            sentence = "; ".join(said)
            return sentence[0].upper() + sentence[1:] + "."
        if action == "sync" and not name:
            lines = [self._sync(found) for found in ProlificStudy.objects.select_related("study")]
            return "\n".join(lines) or "No study is on Prolific."
        if action == "recruit" and not name:
            targeted = ProlificStudy.objects.select_related("study").exclude(target_kind="")
            return "\n".join(self._recruit(study) for study in targeted) or "No study on Prolific has a target."
        if action == "create":
            created = prolific_study_create(study=self._study(name), places=options["places"])
            return f"Created draft {created.prolific_id} on Prolific ({created.places} places); publish it when ready."
        found = self._prolific(name)
        if action in TRANSITIONS:
            found = prolific_study_transition(prolific_study=found, action=action)
            return f"{found.study.name}: {found.get_status_display()} on Prolific."
        if action == "places":
            if options["places"] is None:
                raise CommandError("give --places N")
            found = prolific_places_raise(prolific_study=found, places=options["places"])
            return f"{found.study.name}: {found.places} places on Prolific."
        if action == "sync":
            return self._sync(found)
        if action == "recruit":
            if options["target"]:
                prolific_recruit_configure(
                    prolific_study=found,
                    kind="" if options["target"] == "none" else options["target"],
                    value=options["value"],
                    max_spend_pence=options["max_spend"],
                    step=options["step"],
                    rule=options["rule"],
                )
                if not found.target_kind:
                    return f"{found.study.name}: no recruitment target."
            return self._recruit(found)
        if action == "review":
            if options["reject_excluded"]:
                prolific_study_configure(prolific_study=found, reject_excluded=options["reject_excluded"] == "yes")
            if options["dry_run"]:
                return self._review_plan(found)
            result = prolific_review(prolific_study=found)
            return (
                f"{found.study.name}: approved {result.approved}, rejected {result.rejected}, approved and "
                f"flagged {result.approved_flagged} (excluded, rejection not allowed), left for review by hand "
                f"{result.left}."
            )
        return self._bonuses(found, options)

    def _review_plan(self, found: ProlificStudy) -> str:
        prolific_sync(prolific_study=found, resend=False)  # a dry run sends nothing
        plan = review_plan(prolific_study=found)
        lines = [
            f"{d.pseudonym}: {d.decision}"
            + (f" ({d.message})" if d.message else "")
            + (f" [look first: {d.caution}]" if d.caution else "")
            for d in plan.decisions
        ]
        lines += [f"{who}: left for review by hand" for who in plan.left]
        return "\n".join(
            [*lines, f"Dry run: {len(plan.approvals)} approvals, {len(plan.rejections)} rejections; nothing sent."]
        )

    def _sync(self, found: ProlificStudy) -> str:
        result = prolific_sync(prolific_study=found)
        line = (
            f"{found.study.name}: {result.submissions} submissions, {result.events_applied} stored webhooks "
            f"applied, {result.resent} approvals sent again, {result.flagged} open flags."
        )
        return f"{line}\n{self._recruit(found)}" if found.target_kind else line

    def _recruit(self, found: ProlificStudy) -> str:
        point = recruitment_step(found)
        width = f"{point.ci_width:.1f} points" if point.ci_width is not None else "undefined"
        return (
            f"{found.study.name}: {point.completed} completed, CI width {width}, {point.places} places; "
            f"{point.action}: {point.reason}."
        )

    def _bonuses(self, found: ProlificStudy, options: dict) -> str:
        if options["per_correct"] is not None:
            prolific_study_configure(prolific_study=found, bonus_per_correct_pence=options["per_correct"])
        if options["confirm"]:
            batch = bonus_batch_confirm(prolific_study=found, paid=options["confirm"] == "paid")
            if batch.state == batch.State.PAID:
                return f"Bulk bonus {batch.bulk_id} recorded as paid."
        if options["dry_run"]:
            amounts = bonus_amounts(found)
            lines = [
                f"{row.participant.pseudonym}: {money(row.pence, found.currency)}"
                + (f" (includes the reward, {money(row.reward_pence, found.currency)})" if row.reward_pence else "")
                for row in amounts
            ]
            bonuses = ngettext("%(n)d bonus", "%(n)d bonuses", len(amounts)) % {"n": len(amounts)}
            total = money(sum(row.pence for row in amounts), found.currency)
            return "\n".join([*lines, f"Dry run: {bonuses}, {total}."])
        result = prolific_bonuses_pay(prolific_study=found)
        if result.batch is None:
            return "No bonus is owed."
        batch = result.batch
        paid = batch.lines.count()
        people = ngettext("%(n)d participant", "%(n)d participants", paid) % {"n": paid}
        return (
            f"Bulk bonus {batch.bulk_id}: {money(batch.total_pence, found.currency)} to {people}, "
            f"{batch.get_state_display().lower()}{' now' if result.paid_now else ''}."
        )
