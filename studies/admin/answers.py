"""The answers' admin: read and filter, never edit; researchers mark written answers by hand."""

from __future__ import annotations

from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.db.models import Q
from django.shortcuts import render
from django.urls import path, reverse
from django.utils.html import format_html, format_html_join

from studies.access import studies_for_user
from studies.admin.base import NoBulkDeletion, ResearcherAdmin
from studies.admin.withholding import for_viewer, shown, withheld_for, withheld_response
from studies.models import Response, VerificationMark
from studies.participants.answers import responses_verify
from studies.participants.identity import can_see_identities
from studies.selectors import verifiable_benchmarks, verification_summary


def _by_hand() -> Q:
    """Written answers verified by hand: their correctness is the researcher's mark, not `correct`."""
    return Q(participant__study__benchmark__in=verifiable_benchmarks(), is_attention_check=False)


class CorrectFilter(admin.SimpleListFilter):
    """Right and wrong as the results count them: a written answer verified by hand is right or
    wrong by its mark, and unverified until marked (never wrong for want of a mark)."""

    title = "correctness"
    parameter_name = "correct"

    def lookups(self, request, model_admin):
        return [
            ("yes", "Correct"),
            ("no", "Wrong"),
            ("unverified", "Written, not verified yet"),
            ("invalid", "Invalid answer"),
        ]

    def queryset(self, request, queryset):
        value = self.value()
        if value == "invalid":
            return queryset.filter(valid=False)
        if value == "unverified":
            return queryset.filter(_by_hand(), valid=True, verified_correct__isnull=True)
        if value in {"yes", "no"}:
            right = value == "yes"
            return queryset.filter((~_by_hand() & Q(correct=right)) | (_by_hand() & Q(verified_correct=right)))
        return queryset


class ItemTypeFilter(admin.SimpleListFilter):
    title = "item type"
    parameter_name = "item_type"

    def lookups(self, request, model_admin):
        return [("attention", "Attention checks"), ("item", "Study items")]

    def queryset(self, request, queryset):
        if self.value() in {"attention", "item"}:
            return queryset.filter(is_attention_check=self.value() == "attention")
        return queryset


class VerifiedFilter(admin.SimpleListFilter):
    title = "researcher's mark"
    parameter_name = "verified"

    def lookups(self, request, model_admin):
        return [("correct", "Marked correct"), ("incorrect", "Marked incorrect"), ("pending", "Not marked yet")]

    def queryset(self, request, queryset):
        match self.value():
            case "correct" | "incorrect":
                return queryset.filter(verified_correct=self.value() == "correct")
            case "pending":
                return queryset.filter(verified_correct__isnull=True)
        return queryset


@admin.register(Response)
class ResponseAdmin(NoBulkDeletion, ResearcherAdmin):
    """Answers are evidence: they can be read and filtered, never edited or added here. Written
    answers (instruction induction) get a researcher's mark through the actions, beside the answer."""

    list_display = [
        "participant",
        "position",
        "item",
        "shown_raw_answer",
        "shown_answer",
        "outcome",
        "verified",
        "duration_ms",
        "answered_at",
    ]
    study_path = "participant__study"
    list_filter = [
        ("participant__study", admin.RelatedOnlyFieldListFilter),
        ("participant__unit", admin.RelatedOnlyFieldListFilter),
        ItemTypeFilter,
        CorrectFilter,
        VerifiedFilter,
        "item__split",
    ]
    list_select_related = ["participant", "participant__study", "item"]
    search_fields = ["participant__pseudonym", "item__key", "raw_answer"]
    #: what a participant typed: searched only by those who may see identities, as a search on it is
    #: an oracle of an id typed into an answer (`?q=5f0c` finds the answers that hold it)
    typed_fields = ("raw_answer",)
    actions = ["mark_correct", "mark_incorrect", "clear_mark"]
    readonly_fields = ["marks_history"]

    def has_add_permission(self, request):
        return False

    def get_search_fields(self, request):
        fields = super().get_search_fields(request)
        return fields if can_see_identities(request.user) else [f for f in fields if f not in self.typed_fields]

    def changelist_view(self, request, extra_context=None):
        with withheld_for(request):
            return super().changelist_view(request, extra_context)

    def get_object(self, request, object_id, from_field=None):
        """The answer with the study's identities withheld from what the participant typed, for a
        viewer without the identity permission (read only: nobody may change an answer here)."""
        return for_viewer(request, super().get_object(request, object_id, from_field), withheld_response)

    @admin.display(description="raw answer")
    def shown_raw_answer(self, response: Response) -> str:
        return shown(response.participant.study, response.raw_answer)

    @admin.display(description="answer")
    def shown_answer(self, response: Response) -> str:
        return shown(response.participant.study, response.answer)

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False  # answers are evidence: never changed by hand, for anyone

    def has_verify_permission(self, request) -> bool:
        return request.user.has_perm("studies.verify_response")

    @admin.display(description="correct", boolean=True)
    def outcome(self, response: Response) -> bool | None:
        """The answer's score, or for a written answer verified by hand its mark (empty: unverified)."""
        if response.participant.study.definition.manual_verification and not response.is_attention_check:
            return response.verified_correct
        return response.correct

    @admin.display(description="history of marks")
    def marks_history(self, response: Response) -> str:
        marks = VerificationMark.objects.filter(response=response).select_related("verifier").order_by("at", "id")
        rows = ((m.at, m.verifier or "someone since removed", m.get_role_display(), m.verdict) for m in marks)
        listed = format_html_join("", "<li>{} · {} · {} · <strong>{}</strong></li>", rows)
        return format_html("<ol>{}</ol>", listed) if listed else "—"

    @admin.display(description="marked", ordering="verified_correct")
    def verified(self, response: Response) -> str:
        if response.verified_correct is None:
            return "—"
        return "correct" if response.verified_correct else "incorrect"

    def _mark(self, request, queryset, correct: bool | None, done: str) -> None:
        result = responses_verify(
            response_ids=list(queryset.values_list("pk", flat=True)), correct=correct, user=request.user
        )
        skipped = f"; {result.skipped} skipped (not written answers verified by hand)" if result.skipped else ""
        self.message_user(
            request,
            format_html(
                '{} answer(s) {}{}. <a href="{}">Share correct per task</a>',
                result.marked,
                done,
                skipped,
                reverse("admin:studies_response_verification"),
            ),
            messages.SUCCESS if result.marked else messages.WARNING,
        )

    @admin.action(description="Mark instruction correct (manual verification)", permissions=["verify"])
    def mark_correct(self, request, queryset):
        self._mark(request, queryset, True, "marked correct")

    @admin.action(description="Mark instruction incorrect (manual verification)", permissions=["verify"])
    def mark_incorrect(self, request, queryset):
        self._mark(request, queryset, False, "marked incorrect")

    @admin.action(description="Clear the manual verification mark", permissions=["verify"])
    def clear_mark(self, request, queryset):
        self._mark(request, queryset, None, "unmarked")

    def get_urls(self):
        summary = path(
            "verification/", self.admin_site.admin_view(self.verification_view), name="studies_response_verification"
        )
        return [summary, *super().get_urls()]

    def verification_view(self, request):
        """Per study and task: answers written, marked, marked correct, and the share correct."""
        if not self.has_view_permission(request):
            raise PermissionDenied
        context = {
            **self.admin_site.each_context(request),
            "title": "Manual verification: share correct per task",
            "rows": verification_summary(studies=studies_for_user(request.user)),
            "opts": self.model._meta,
        }
        return render(request, "admin/studies/response/verification.html", context)
