"""The admin of a study's life on Prolific: the study there (with its actions), submissions and their
decisions, flags to look at, webhook deliveries and the bonus ledger. Everything is written by the
services; the pages are read-only but for the study's policies."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest

from prolific.bonuses import prolific_bonuses_pay
from prolific.client import ProlificError
from prolific.models import BonusBatch, BonusLine, ProlificEvent, ProlificFlag, ProlificStudy, ProlificSubmission
from prolific.recruitment import prolific_recruit_configure
from prolific.review import prolific_review
from prolific.services import (
    ProlificStudyError,
    flags_resolve,
    prolific_study_configure,
    prolific_study_create,
    prolific_study_transition,
    prolific_sync,
)
from studies.access import VIEW_STUDY, has_permission
from studies.admin import StudyAdmin
from studies.admin_base import IdentityGuard, ResearcherAdmin
from studies.models import Study

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
    actions = [*StudyAdmin.actions, create_on_prolific]

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
        "synced_at",
        "target_kind",
        "target_value",
        "target_step",
        "max_spend_pence",
    ]
    readonly_fields = ["study", "prolific_id", "status", "places", "synced_at"]
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
            lambda found: f"{found.study}: {prolific_sync(prolific_study=found).submissions} submissions pulled",
        )

    @admin.action(description="Review: approve / reject the submissions awaiting review", permissions=["prolific"])
    def review(self, request: HttpRequest, queryset: QuerySet[ProlificStudy]) -> None:
        def run(found: ProlificStudy) -> str:
            result = prolific_review(prolific_study=found)
            return (
                f"{found.study}: approved {result.approved}, rejected {result.rejected}, approved and flagged "
                f"{result.approved_flagged}, left for review by hand {result.left}"
            )

        _each(self, request, queryset, "review", run)

    @admin.action(description="Pay the bonuses owed (exactly once)", permissions=["prolific"])
    def pay_bonuses(self, request: HttpRequest, queryset: QuerySet[ProlificStudy]) -> None:
        def run(found: ProlificStudy) -> str:
            batch = prolific_bonuses_pay(prolific_study=found).batch
            return f"{found.study}: no bonus owed" if batch is None else f"{found.study}: {batch}"

        _each(self, request, queryset, "pay the bonuses", run)


class ReadOnlyAdmin(StudyPermissionAdmin):
    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(ProlificSubmission)
class ProlificSubmissionAdmin(ReadOnlyAdmin):
    study_path = "prolific_study__study"
    # the Prolific ids only for those who may see them (IdentityGuard); the others read the pseudonym
    list_display = [
        "prolific_study",
        "participant",
        "prolific_pid",
        "submission_id",
        "status",
        "decision",
        "decided_at",
        "decision_sent_at",
    ]
    list_filter = ["status", "decision", "prolific_study__study"]
    list_select_related = ["prolific_study__study", "participant__study"]


@admin.register(ProlificFlag)
class ProlificFlagAdmin(ReadOnlyAdmin):
    study_path = "prolific_study__study"
    # a flag's words name no one; the submission's Prolific ids only for those who may see them
    list_display = [
        "kind",
        "prolific_study",
        "subject",
        "submission__submission_id",
        "submission__prolific_pid",
        "detail",
        "resolved",
        "created_at",
    ]
    list_filter = ["kind", "resolved", "prolific_study__study"]
    list_select_related = ["prolific_study__study", "submission"]
    actions = ["resolve"]

    def has_resolve_permission(self, request: HttpRequest) -> bool:
        return has_permission(request.user, CHANGE_STUDY)

    @admin.action(description="Mark resolved", permissions=["resolve"])
    def resolve(self, request: HttpRequest, queryset: QuerySet[ProlificFlag]) -> None:
        self.message_user(
            request, f"{flags_resolve(flag_ids=list(queryset.values_list('pk', flat=True)))} flags resolved"
        )


@admin.register(ProlificEvent)
class ProlificEventAdmin(ReadOnlyAdmin):
    list_display = ["event_type", "event_id", "received_at", "processed_at", "error"]
    list_filter = ["event_type"]

    def get_queryset(self, request: HttpRequest) -> QuerySet:
        # deliveries name Prolific ids of any study: superusers only
        queryset = super().get_queryset(request)
        return queryset if request.user.is_superuser else queryset.none()


class BonusLineInline(IdentityGuard, admin.TabularInline):
    model = BonusLine
    fields = ["participant", "prolific_pid", "amount_pence"]
    readonly_fields = fields
    extra = 0
    can_delete = False


@admin.register(BonusBatch)
class BonusBatchAdmin(ReadOnlyAdmin):
    study_path = "prolific_study__study"
    list_display = ["prolific_study", "state", "bulk_id", "total_pence", "computed_at", "created_at", "paid_at", "note"]
    list_filter = ["state"]
    list_select_related = ["prolific_study__study"]
    inlines = [BonusLineInline]
