"""The admin of a study's life on Prolific: the study there (with its actions), submissions and their
decisions, flags to look at, webhook deliveries and the bonus ledger. Everything is written by the
services; the pages are read-only but for the study's policies."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.template.defaultfilters import pluralize
from django.urls import reverse
from django.utils.html import format_html, format_html_join

from prolific.bonuses import BonusPlan, bonus_plan, prolific_bonuses_pay
from prolific.client import ProlificError
from prolific.models import BonusBatch, BonusLine, ProlificEvent, ProlificFlag, ProlificStudy, ProlificSubmission
from prolific.recruitment import prolific_recruit_configure
from prolific.review import ReviewPlan, prolific_review, review_plan
from prolific.selectors import decision_conflicts, decisions_of, open_flags_of, participants_mismatched
from prolific.services import (
    ProlificStudyError,
    SyncResult,
    flags_resolve,
    prolific_study_configure,
    prolific_study_create,
    prolific_study_transition,
    prolific_sync,
)
from studies.access import VIEW_STUDY, has_permission
from studies.admin import StudyAdmin
from studies.admin.base import IdentityGuard, ResearcherAdmin, participant_label
from studies.admin.participants import REASON_SHOWN, ParticipantAdmin
from studies.models import Participant, Study
from studies.participants.quality import participant_flags

CHANGE_STUDY = "studies.change_study"


def _each(
    modeladmin: admin.ModelAdmin, request: HttpRequest, queryset: QuerySet, verb: str, operation: Callable[[Any], str]
) -> None:
    """Run `operation` on each selected row, reporting each success and each refusal by Prolific or Parity."""
    for row in queryset:
        try:
            modeladmin.message_user(request, operation(row), messages.SUCCESS)
        except (ProlificError, ProlificStudyError) as exc:
            modeladmin.message_user(request, f"{row}: could not {verb}: {exc}", messages.ERROR)


def sync_summary(found: ProlificStudy, result: SyncResult) -> str:
    """What a sync found, as the researcher who pressed it reads it: the status Prolific gave the study,
    and what needs them (approvals sent again, flags still open), which a count of rows alone hid."""
    said = [
        f"{found.study}: {result.submissions} submission{pluralize(result.submissions)} pulled",
        f"on Prolific: {found.get_status_display().lower()}",
    ]
    if result.resent:
        said.append(
            f"{result.resent} approval{pluralize(result.resent)} sent again (accepted by Prolific but not applied)"
        )
    if result.flagged:
        said.append(f"{result.flagged} flag{pluralize(result.flagged)} open, listed under Prolific flags")
    return "; ".join(said)


@admin.action(description="Create on Prolific (as a draft)", permissions=["prolific"])
def create_on_prolific(modeladmin: admin.ModelAdmin, request: HttpRequest, queryset: QuerySet[Study]) -> None:
    _each(
        modeladmin,
        request,
        queryset,
        "create it on Prolific",
        lambda study: (
            f"{study}: draft {prolific_study_create(study=study, actor=request.user).prolific_id} created on Prolific"
        ),
    )


# The studies app knows nothing of Prolific: its study admin gains the Prolific action here.
admin.site.unregister(Study)


@admin.register(Study)
class StudyWithProlificAdmin(StudyAdmin):
    actions = [create_on_prolific]  # StudyAdmin has no actions of its own

    def has_prolific_permission(self, request: HttpRequest) -> bool:
        return has_permission(request.user, CHANGE_STUDY)


def _moved(found: ProlificStudy, action: str, request: HttpRequest) -> ProlificStudy:
    return prolific_study_transition(prolific_study=found, action=action, actor=request.user)


def _transition(action: str) -> Callable:
    @admin.action(description=f"{action.capitalize()} on Prolific", permissions=["prolific"])
    def run(modeladmin: admin.ModelAdmin, request: HttpRequest, queryset: QuerySet[ProlificStudy]) -> None:
        _each(
            modeladmin,
            request,
            queryset,
            action,
            lambda found: f"{found.study}: {_moved(found, action, request).get_status_display()}",
        )

    run.__name__ = f"{action}_on_prolific"
    return run


class StudyPermissionAdmin(ResearcherAdmin):
    """Seen by whoever may see the study (`studies.view_study`), changed by whoever may change it:
    these rows are the study's life on Prolific, not objects of their own."""

    def has_view_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return has_permission(request.user, VIEW_STUDY)

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return has_permission(request.user, CHANGE_STUDY)

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


#: the preview shown again when what would be sent changed since the one confirmed
CHANGED = {
    "review": "Nothing was sent: the decisions changed since the preview; here they are as they are now.",
    "bonuses": "Nothing was paid: the bonuses changed since the preview; here they are as they are now.",
}


@admin.register(ProlificStudy)
class ProlificStudyAdmin(StudyPermissionAdmin):
    study_path = "study"
    list_display = [
        "study",
        "prolific_id",
        "status",
        "places",
        "reject_excluded",
        "bonus_per_correct_pence",
        "status_at",
        "synced_at",
    ]
    list_filter = ["status"]
    list_select_related = ["study"]
    search_fields = ["study__name", "prolific_id"]
    fields = [
        "study",
        "prolific_id",
        "status",
        "places",
        "reject_excluded",
        "bonus_per_correct_pence",
        "status_at",
        "synced_at",
        "target_kind",
        "target_value",
        "target_rule",
        "target_step",
        "max_spend_pence",
    ]
    readonly_fields = ["study", "prolific_id", "status", "places", "status_at", "synced_at"]
    actions = [
        _transition("publish"),
        _transition("pause"),
        _transition("start"),
        _transition("stop"),
        "sync",
        "review",
        "pay_bonuses",
    ]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False  # a study goes to Prolific through the study list's action (`prolific_study_create`)

    def has_prolific_permission(self, request: HttpRequest) -> bool:
        return has_permission(request.user, CHANGE_STUDY)

    def save_model(self, request: HttpRequest, obj: ProlificStudy, form: Any, change: bool) -> None:
        try:
            prolific_study_configure(
                prolific_study=ProlificStudy.objects.get(pk=obj.pk),
                bonus_per_correct_pence=form.cleaned_data["bonus_per_correct_pence"],
                reject_excluded=form.cleaned_data["reject_excluded"],
            )
            data = form.cleaned_data
            prolific_recruit_configure(
                prolific_study=ProlificStudy.objects.get(pk=obj.pk),
                kind=data["target_kind"],
                value=data["target_value"],
                max_spend_pence=data["max_spend_pence"],
                step=data["target_step"],
                rule=data["target_rule"],
                actor=request.user,
            )
        except ProlificStudyError as exc:
            self.message_user(request, str(exc), messages.ERROR)

    @admin.action(description="Sync with Prolific (pull the submissions)", permissions=["prolific"])
    def sync(self, request: HttpRequest, queryset: QuerySet[ProlificStudy]) -> None:
        _each(
            self,
            request,
            queryset,
            "sync",
            lambda found: sync_summary(found, prolific_sync(prolific_study=found)),
        )

    def _preview(
        self,
        request: HttpRequest,
        queryset: QuerySet[ProlificStudy],
        kind: str,
        plans: list[tuple[ProlificStudy, ReviewPlan | BonusPlan]],
        error: str = "",
    ) -> HttpResponse:
        return render(
            request,
            f"admin/prolific/prolificstudy/{kind}_preview.html",
            {
                **self.admin_site.each_context(request),
                "title": "Review on Prolific: what will be sent" if kind == "review" else "Bonuses: what will be paid",
                "plans": plans,
                "cautions": any(plan.cautions for _, plan in plans),
                "error": error,
                "opts": self.model._meta,
                "action": "review" if kind == "review" else "pay_bonuses",
            },
        )

    def _plans(
        self, request: HttpRequest, queryset: QuerySet[ProlificStudy], plan: Callable, pull: bool
    ) -> list[tuple[ProlificStudy, ReviewPlan | BonusPlan]]:
        """Each chosen study with what would be sent for it; a pull first (`pull`) reads Prolific's latest
        submissions, sending nothing."""
        plans = []
        for found in queryset.select_related("study"):
            if pull:
                try:
                    prolific_sync(prolific_study=found, resend=False)
                except ProlificError as exc:
                    self.message_user(request, f"{found.study}: could not pull the submissions: {exc}", messages.ERROR)
            plans.append((found, plan(prolific_study=found)))
        return plans

    def _confirmed(
        self, request: HttpRequest, queryset: QuerySet[ProlificStudy], kind: str, plan: Callable
    ) -> HttpResponse | None:
        """None when the preview was confirmed (ticking the box its cautions ask for); else the preview again."""
        if "confirm" not in request.POST:
            return self._preview(request, queryset, kind, self._plans(request, queryset, plan, pull=True))
        plans = self._plans(request, queryset, plan, pull=False)
        if any(request.POST.get(f"fingerprint-{found.pk}") != shown.fingerprint for found, shown in plans):
            # an exclusion, a flag or an amount changed since the preview: what the reviewer confirmed
            # is not what would be sent, so it is shown again, with its cautions, to confirm afresh
            return self._preview(request, queryset, kind, plans, CHANGED[kind])
        if any(p.cautions for _, p in plans) and "confirm_cautions" not in request.POST:
            error = "Some of these need your confirmation (the box below): nothing was sent."
            return self._preview(request, queryset, kind, plans, error)
        return None

    @admin.action(description="Review: approve / reject the submissions awaiting review…", permissions=["prolific"])
    def review(self, request: HttpRequest, queryset: QuerySet[ProlificStudy]) -> HttpResponse | None:
        """A preview of every decision (who is approved, who rejected with which message, who asks for a
        look), then, on confirmation, exactly those decisions are sent."""
        asked = self._confirmed(request, queryset, "review", review_plan)
        if asked is not None:
            return asked

        def run(found: ProlificStudy) -> str:
            expected = request.POST.get(f"fingerprint-{found.pk}", "")
            result = prolific_review(prolific_study=found, expected=expected)
            return (
                f"{found.study}: approved {result.approved}, rejected {result.rejected}, approved and flagged "
                f"{result.approved_flagged}, left for review by hand {result.left}"
            )

        _each(self, request, queryset, "review", run)
        return None

    @admin.action(description="Pay the bonuses owed (exactly once)…", permissions=["prolific"])
    def pay_bonuses(self, request: HttpRequest, queryset: QuerySet[ProlificStudy]) -> HttpResponse | None:
        """A preview of each bonus and the total, in the workspace's currency, then, on confirmation, the payment."""
        asked = self._confirmed(request, queryset, "bonuses", bonus_plan)
        if asked is not None:
            return asked

        def run(found: ProlificStudy) -> str:
            expected = request.POST.get(f"fingerprint-{found.pk}", "")
            batch = prolific_bonuses_pay(prolific_study=found, expected=expected).batch
            return f"{found.study}: no bonus owed" if batch is None else f"{found.study}: {batch}"

        _each(self, request, queryset, "pay the bonuses", run)
        return None


class ReadOnlyAdmin(StudyPermissionAdmin):
    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


class MismatchFilter(admin.SimpleListFilter):
    """Participants whose exclusion and Prolific decision (or bonus) disagree: rejected but included
    again, approved as kept or given a bonus but excluded since."""

    title = "decision and exclusion"
    parameter_name = "mismatch"
    #: the path from the list's model to its participant ("" for participants themselves)
    participant_path = ""

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
        return [("yes", "Disagree")]

    def queryset(self, request: HttpRequest, queryset: QuerySet) -> QuerySet:
        if self.value() != "yes":
            return queryset
        path = self.participant_path
        participants = Participant.objects.filter(pk__in=queryset.values(f"{path}__pk" if path else "pk"))
        found = list(participants_mismatched(participants))
        return queryset.filter(**{f"{path}__pk__in" if path else "pk__in": found})


class SubmissionMismatchFilter(MismatchFilter):
    participant_path = "participant"


def _participant_link(participant: Participant | None) -> str:
    if participant is None:
        return "—"
    url = reverse("admin:studies_participant_change", args=[participant.pk])
    return format_html('<a href="{}">{}</a>', url, participant_label(participant.pseudonym, participant.study.name))


@admin.register(ProlificSubmission)
class ProlificSubmissionAdmin(ReadOnlyAdmin):
    study_path = "prolific_study__study"
    # the Prolific ids only for those who may see them (IdentityGuard); the others read the pseudonym
    list_display = [
        "who",
        "prolific_pid",
        "submission_id",
        "status",
        "decision",
        "decided_at",
        "decision_sent_at",
        "exclusion",
        "flags",
        "disagreement",
    ]
    list_filter = ["status", "decision", "prolific_study__study", SubmissionMismatchFilter]
    list_select_related = ["prolific_study__study", "participant__study"]

    class Media:
        css = {"all": ["css/admin-review.css"]}

    def get_changelist_instance(self, request: HttpRequest) -> Any:
        """The page's rows, each with its participant's flags and disagreements (computed once for the page)."""
        changelist = super().get_changelist_instance(request)
        rows = list(changelist.result_list)
        people = Participant.objects.filter(pk__in=[row.participant_id for row in rows if row.participant_id])
        flagged, mismatched = participant_flags(people), participants_mismatched(people)
        for row in rows:
            row.flag_names = flagged.get(row.participant_id, [])
            row.conflicts = mismatched.get(row.participant_id, [])
        return changelist

    @admin.display(description="participant", ordering="participant__pseudonym")
    def who(self, record: ProlificSubmission) -> str:
        return _participant_link(record.participant)

    @admin.display(description="excluded")
    def exclusion(self, record: ProlificSubmission) -> str:
        participant = record.participant
        if participant is None or not participant.excluded:
            return "no" if participant is not None else "—"
        said = participant.exclusion_reason or "no reason given"
        short = said if len(said) <= REASON_SHOWN else said[: REASON_SHOWN - 1] + "…"
        return format_html('yes: <span title="{}">{}</span>', said, short)

    @admin.display(description="flags")
    def flags(self, record: ProlificSubmission) -> str:
        names = getattr(record, "flag_names", [])
        return ", ".join(name.replace("_", " ") for name in names) or "—"

    @admin.display(description="disagrees")
    def disagreement(self, record: ProlificSubmission) -> str:
        conflicts = getattr(record, "conflicts", [])
        if not conflicts:
            return "—"
        state = "excluded" if record.participant and record.participant.excluded else "included"
        return format_html('<strong class="mismatch">{}, but {}</strong>', "; ".join(conflicts), state)


@admin.register(ProlificFlag)
class ProlificFlagAdmin(ReadOnlyAdmin):
    study_path = "prolific_study__study"
    # a flag's words name no one; the submission's Prolific ids only for those who may see them
    # the flag's words come before the ids: at 1,600 px beside the filters they stay on the screen
    list_display = [
        "kind",
        "prolific_study",
        "subject",
        "who",
        "detail",
        "resolved",
        "created_at",
        "submission__submission_id",
        "submission__prolific_pid",
    ]
    list_filter = ["kind", "resolved", "prolific_study__study"]
    list_select_related = ["prolific_study__study", "submission", "participant__study"]
    actions = ["resolve"]

    class Media:
        css = {"all": ["css/admin-review.css"]}

    @admin.display(description="participant")
    def who(self, flag: ProlificFlag) -> str:
        return _participant_link(flag.participant)

    def has_resolve_permission(self, request: HttpRequest) -> bool:
        return has_permission(request.user, CHANGE_STUDY)

    @admin.action(description="Mark resolved", permissions=["resolve"])
    def resolve(self, request: HttpRequest, queryset: QuerySet[ProlificFlag]) -> None:
        self.message_user(
            request, f"{flags_resolve(flag_ids=list(queryset.values_list('pk', flat=True)))} flags resolved"
        )


@admin.register(ProlificEvent)
class ProlificEventAdmin(ReadOnlyAdmin):
    list_display = ["event_type", "event_id", "sent_at", "received_at", "processed_at", "superseded", "error"]
    list_filter = ["event_type", "superseded"]

    def get_queryset(self, request: HttpRequest) -> QuerySet:
        # deliveries name Prolific ids of any study: superusers only
        queryset = super().get_queryset(request)
        return queryset if request.user.is_superuser else queryset.none()


class BonusLineInline(IdentityGuard, admin.TabularInline):
    model = BonusLine
    fields = readonly_fields = ("participant", "prolific_pid", "amount_pence", "reward_pence")
    extra = 0
    can_delete = False


@admin.register(BonusBatch)
class BonusBatchAdmin(ReadOnlyAdmin):
    study_path = "prolific_study__study"
    list_display = ["prolific_study", "state", "bulk_id", "total_pence", "computed_at", "created_at", "paid_at", "note"]
    list_filter = ["state"]
    list_select_related = ["prolific_study__study"]
    inlines = [BonusLineInline]


# The studies app knows nothing of Prolific: its participant admin gains the submission, the decision,
# the bonus and the warnings where an exclusion and a decision disagree here.
admin.site.unregister(Participant)


@admin.register(Participant)
class ParticipantWithProlificAdmin(ParticipantAdmin):
    list_filter = [*ParticipantAdmin.list_filter, MismatchFilter]
    readonly_fields = [*ParticipantAdmin.readonly_fields, "prolific_decision"]

    def get_fields(self, request: HttpRequest, obj: Any = None) -> list[Any]:
        return [*super().get_fields(request, obj), "prolific_decision"]

    def decision_warnings(self, participants: QuerySet[Participant], *, excluding: bool) -> list[str]:
        names = dict(participants.values_list("pk", "pseudonym"))
        warnings = []
        for pk, decided in sorted(decisions_of(names).items()):
            conflicts = decision_conflicts(decided, excluded=excluding)
            if not conflicts:
                continue
            if excluding:
                warnings.append(
                    f"{names[pk]} was {' and '.join(conflicts)}: excluded from the results, they disagree with "
                    "Prolific's decision and payments, which stand (they cannot be taken back here)."
                )
            else:
                warnings.append(
                    f"{names[pk]} was {' and '.join(conflicts)}: included in the results again, their answers "
                    "count although Prolific's decision went against them."
                )
        return warnings

    @admin.display(description="on Prolific")
    def prolific_decision(self, participant: Participant) -> str:
        decided = decisions_of([participant.pk]).get(participant.pk)
        if decided is None:
            return "no Prolific submission"
        record = decided.submission
        parts = []
        if record is not None:
            decision = record.get_decision_display() or "none taken yet"
            sent = f"sent {record.decision_sent_at:%Y-%m-%d %H:%M}" if record.decision_sent_at else "not sent"
            parts.append(f"submission {record.status}; decision: {decision} ({sent})")
            if record.decision_reason:
                parts.append(f"message or reason: {record.decision_reason}")
        parts.append(f"bonus: {decided.bonus or 'none'}")
        # what Prolific changed on its own about them (timed out, returned, an approval not applied) is
        # read where the reviewer looks at the person, not only in the list of flags
        parts += [f"flagged ({flag.get_kind_display()}): {flag.detail}" for flag in open_flags_of(participant)]
        conflicts = decision_conflicts(decided, excluded=participant.excluded)
        warning = (
            format_html(
                '<p class="mismatch"><strong>Disagrees with the exclusion: {}, but {}.</strong></p>',
                "; ".join(conflicts),
                "excluded" if participant.excluded else "included",
            )
            if conflicts
            else ""
        )
        return format_html("{}<ul>{}</ul>", warning, format_html_join("", "<li>{}</li>", ((p,) for p in parts)))
