"""The researchers' admin: studies and their units here; participants, answers and verification in
the modules beside (registered as this package is imported, which Django's autodiscovery does)."""

from __future__ import annotations

from typing import TYPE_CHECKING, TypedDict

from django.contrib import admin
from django.db.models import Count, Q
from django.shortcuts import redirect
from django.urls import reverse
from django.utils.html import format_html, format_html_join

from studies.access import may_manage_access
from studies.admin import (
    answers,  # noqa: F401 (registers the answers' admin)
    participants,  # noqa: F401 (registers the participants' admin)
)
from studies.admin.base import NoBulkDeletion, ResearcherAdmin
from studies.design.pay import hourly_pay
from studies.models import Participant, Preregistration, Study, StudyEvent, Unit
from studies.selectors import median_minutes, units_with_counts
from studies.setup import studies as study_services

if TYPE_CHECKING:
    from django_stubs_ext import WithAnnotations


class _StudyCounts(TypedDict):
    _participants: int
    _completed: int


@admin.register(Study)
class StudyAdmin(NoBulkDeletion, ResearcherAdmin):
    study_path = ""
    list_display = ["name", "benchmark", "status", "group", "owner", "n_participants", "n_completed", "created_at"]
    list_filter = ["benchmark", "status", "language", "is_imported"]
    search_fields = ["name", "group"]
    readonly_fields = [
        "link",
        "participant_link",
        "unit_counts",
        "pay",
        "canary_word",
        "preregistration_frozen",
        "audit_trail",
    ]
    list_select_related = ["owner"]
    filter_horizontal = ["collaborators"]
    fieldsets = [
        (None, {"fields": ["name", "benchmark", "status", "group", "link", "participant_link"]}),
        ("Who works on it", {"fields": ["owner", "collaborators"]}),
        (
            "Participants see",
            {"fields": ["public_title", "language", "consent_text", "instructions_text", "canary_word"]},
        ),
        (
            "Design",
            {
                "fields": [
                    "design",
                    "attention_checks",
                    "exclude_at",
                    "min_answer_ms",
                    "reservation_timeout_minutes",
                    "closing_questions",
                    "explanations",
                    "explanation_every",
                    "explanation_prompt",
                    "unit_counts",
                ]
            },
        ),
        (
            "Prolific",
            {
                "fields": [
                    "panel",
                    "panel_settings",
                    "pid_format",
                    "completion_code",
                    "failed_attention_code",
                    "no_consent_code",
                    "estimated_minutes",
                    "reward_pence",
                    "pay",
                ]
            },
        ),
        # shown, never edited: frozen at launch, appended to by the services of each change
        ("Preregistration and audit trail", {"fields": ["preregistration_frozen", "audit_trail"]}),
    ]

    def add_view(self, request, form_url="", extra_context=None):
        """A study is created on the researcher's page (`/studies/new/`), from the benchmark's declared
        design options, through `study_create`: never from hand-written design JSON here."""
        return redirect("studies:new")

    def get_readonly_fields(self, request, obj=None):
        # the panel changes on the study's own form while a draft (`panel_problems`), never here
        fixed = [*self.readonly_fields, "panel", "panel_settings"]
        if obj is not None:
            # the units were built from the benchmark and design; the status moves through the
            # study page's launch / pause / close (`study_set_status`), never to an arbitrary value
            fixed += ["benchmark", "design", "attention_checks", "exclude_at", "status"]
        if not request.user.is_superuser:
            fixed.append("owner")  # a study changes hands through a superuser
        if obj is not None and not may_manage_access(request.user, obj):
            fixed.append("collaborators")
        return fixed

    def save_model(self, request, obj, form, change):
        m2m = {field.name for field in Study._meta.many_to_many}  # written by save_related
        study_services.study_update(
            study=obj, fields=[name for name in form.changed_data if name not in m2m], actor=request.user
        )

    def get_queryset(self, request):
        return (
            super()
            .get_queryset(request)
            .annotate(
                _participants=Count("participants", distinct=True),
                _completed=Count(
                    "participants", filter=Q(participants__status=Participant.Status.COMPLETED), distinct=True
                ),
            )
        )

    @admin.display(description="participants", ordering="_participants")
    def n_participants(self, study: WithAnnotations[Study, _StudyCounts]) -> int:
        return study._participants

    @admin.display(description="completed", ordering="_completed")
    def n_completed(self, study: WithAnnotations[Study, _StudyCounts]) -> int:
        return study._completed

    @admin.display(description="participant link (paste into Prolific)")
    def participant_link(self, study: Study) -> str:
        return study.participant_url() if study.pk else "—"

    @admin.display(description="units: working / complete / excluded / capacity")
    def unit_counts(self, study: Study) -> str:
        if not study.pk:
            return "—"
        rows = units_with_counts(study)
        return format_html(
            "<table>{}</table>",
            format_html_join(
                "",
                "<tr><td>{}</td><td>{} items</td><td>{} working</td><td>{} complete</td>"
                "<td>{} excluded</td><td>of {}</td></tr>",
                ((u.label, u.n_items, u.active, u.completed, u.excluded, u.capacity) for u in rows),
            ),
        )

    @admin.display(description="preregistration")
    def preregistration_frozen(self, study: Study) -> str:
        found = Preregistration.objects.filter(study=study).first() if study.pk else None
        if found is None:
            return "—"
        if not found.is_frozen:
            return "draft (freezes at launch)"
        url = reverse("studies:preregistration_download", args=[study.pk, "html"])
        return format_html(
            'frozen {} · SHA-256 <code>{}</code> · <a href="{}">printable page</a>', found.frozen_at, found.sha256, url
        )

    @admin.display(description="audit trail (every change after launch)")
    def audit_trail(self, study: Study) -> str:
        events = list(StudyEvent.objects.filter(study=study).select_related("actor")) if study.pk else []
        if not events:
            return "—"
        rows = ((event.at, event.summary, event.actor or "no one signed in") for event in events)
        return format_html("<ol>{}</ol>", format_html_join("", "<li>{} · {} <small>({})</small></li>", rows))

    @admin.display(description="pay (median time)")
    def pay(self, study: Study) -> str:
        median = median_minutes(study) if study.pk else None
        minutes = median or study.estimated_minutes
        pay = hourly_pay(study.reward_pence, minutes, study.panel)
        basis = f"median completion {median:.1f} min" if median else f"estimate {study.estimated_minutes} min"
        return f"{pay} on {basis} ({pay.verdict})"


@admin.register(Unit)
class UnitAdmin(ResearcherAdmin):
    """Units are built with their study (`study_create`); only how many complete each one changes here."""

    study_path = "study"
    list_display = ["__str__", "category", "capacity"]
    list_filter = [("study", admin.RelatedOnlyFieldListFilter)]
    list_select_related = ["study"]
    fields = ["study", "label", "position", "category", "capacity"]
    readonly_fields = ["study", "label", "position", "category"]

    def has_add_permission(self, request):
        return False

    def save_model(self, request, obj, form, change):
        study_services.unit_set_capacity(unit=obj, capacity=form.cleaned_data["capacity"], actor=request.user)
