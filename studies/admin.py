from __future__ import annotations

from django.contrib import admin, messages
from django.db.models import Avg, Count, FloatField, IntegerField, Q
from django.db.models.functions import Cast
from django.http import HttpRequest
from django.utils.html import format_html, format_html_join

from studies import services
from studies.models import Participant, Study, Unit
from studies.selectors import median_minutes, units_with_counts


def can_see_identities(request: HttpRequest) -> bool:
    return request.user.has_perm("studies.view_identity")


@admin.register(Study)
class StudyAdmin(admin.ModelAdmin):
    list_display = ["name", "benchmark", "status", "group", "n_participants", "n_completed", "created_at"]
    list_filter = ["benchmark", "status", "is_imported"]
    search_fields = ["name", "group"]
    readonly_fields = ["link", "participant_link", "unit_counts", "pay"]
    fieldsets = [
        (None, {"fields": ["name", "benchmark", "status", "group", "link", "participant_link"]}),
        ("Participants see", {"fields": ["consent_text", "instructions_text"]}),
        ("Design", {"fields": ["design", "attention_checks", "exclude_at", "reservation_timeout_minutes", "unit_counts"]}),
        ("Prolific", {"fields": ["completion_code", "failed_attention_code", "no_consent_code",
                                 "estimated_minutes", "reward_pence", "pay"]}),
    ]

    def get_queryset(self, request):
        return super().get_queryset(request).annotate(
            _participants=Count("participants", distinct=True),
            _completed=Count("participants", filter=Q(participants__status=Participant.Status.COMPLETED), distinct=True),
        )

    @admin.display(description="participants", ordering="_participants")
    def n_participants(self, study: Study) -> int:
        return study._participants

    @admin.display(description="completed", ordering="_completed")
    def n_completed(self, study: Study) -> int:
        return study._completed

    @admin.display(description="participant link (paste into Prolific)")
    def participant_link(self, study: Study) -> str:
        return study.participant_url() if study.pk else "—"

    @admin.display(description="units: working / complete / excluded / capacity")
    def unit_counts(self, study: Study) -> str:
        if not study.pk:
            return "—"
        rows = units_with_counts(study)
        return format_html("<table>{}</table>", format_html_join(
            "", "<tr><td>{}</td><td>{} items</td><td>{} working</td><td>{} complete</td><td>{} excluded</td><td>of {}</td></tr>",
            ((u.label, u.n_items, u.active, u.completed, u.excluded, u.capacity) for u in rows)))

    @admin.display(description="pay (median time)")
    def pay(self, study: Study) -> str:
        median = median_minutes(study) if study.pk else None
        minutes = median or study.estimated_minutes
        hourly = study.reward_pence / 100 / max(minutes, 1e-9) * 60
        basis = f"median completion {median:.1f} min" if median else f"estimate {study.estimated_minutes} min"
        verdict = "below Prolific's £6/h minimum" if hourly < 6 else ("below the recommended £9/h" if hourly < 9 else "ok")
        return f"£{hourly:.2f}/h on {basis} ({verdict})"


@admin.register(Unit)
class UnitAdmin(admin.ModelAdmin):
    list_display = ["__str__", "category", "capacity"]
    list_filter = ["study"]
    list_select_related = ["study"]


class ExcludedFilter(admin.SimpleListFilter):
    title = "excluded"
    parameter_name = "excluded"

    def lookups(self, request, model_admin):
        return [("yes", "Excluded"), ("no", "Included")]

    def queryset(self, request, queryset):
        if self.value() in {"yes", "no"}:
            return queryset.filter(excluded=self.value() == "yes")
        return queryset


@admin.register(Participant)
class ParticipantAdmin(admin.ModelAdmin):
    list_display = ["pseudonym", "study", "unit", "status", "step", "progress", "attention_failures",
                    "duration", "accuracy", "excluded", "exclusion_reason"]
    list_filter = ["study", "status", "step", ExcludedFilter, "unit"]
    list_select_related = ["study", "unit"]
    actions = ["exclude_participants", "include_participants", "mark_returned"]
    readonly_fields = ["study", "unit", "pseudonym", "status", "step", "answered", "attention_failures",
                       "started_at", "last_seen_at", "completed_at", "sequence", "current_shown_at", "is_imported"]

    def get_queryset(self, request):
        return super().get_queryset(request).annotate(
            # a boolean cannot be averaged on PostgreSQL: average it as 0/1
            _accuracy=Avg(Cast("responses__correct", IntegerField()), filter=Q(responses__is_attention_check=False),
                          output_field=FloatField()))

    def get_search_fields(self, request):
        return ["pseudonym", "prolific_pid"] if can_see_identities(request) else ["pseudonym"]

    def get_list_display(self, request):
        columns = list(super().get_list_display(request))
        return columns[:1] + ["prolific_pid"] + columns[1:] if can_see_identities(request) else columns

    def get_fields(self, request, obj=None):
        identity = ["prolific_pid", "prolific_study_id", "prolific_session_id"] if can_see_identities(request) else []
        return ["study", "unit", "pseudonym", *identity, "status", "step", "answered", "attention_failures",
                "excluded", "exclusion_reason", "started_at", "last_seen_at", "completed_at", "is_imported"]

    def get_readonly_fields(self, request, obj=None):
        return [*self.readonly_fields, "prolific_pid", "prolific_study_id", "prolific_session_id"]

    def has_add_permission(self, request):
        return False

    @admin.display(description="answered")
    def progress(self, participant: Participant) -> str:
        return f"{participant.answered}/{participant.total}"

    @admin.display(description="minutes")
    def duration(self, participant: Participant) -> str:
        seconds = participant.duration_seconds
        return f"{seconds / 60:.1f}" if seconds is not None else "—"

    @admin.display(description="accuracy", ordering="_accuracy")
    def accuracy(self, participant: Participant) -> str:
        return f"{participant._accuracy:.1%}" if participant._accuracy is not None else "—"

    @admin.action(description="Exclude from results")
    def exclude_participants(self, request, queryset):
        count = services.participants_exclude(participant_ids=list(queryset.values_list("pk", flat=True)),
                                              reason=f"excluded by {request.user.get_username()}")
        self.message_user(request, f"{count} participant(s) excluded.", messages.SUCCESS)

    @admin.action(description="Include in results again")
    def include_participants(self, request, queryset):
        count = services.participants_include(participant_ids=list(queryset.values_list("pk", flat=True)))
        self.message_user(request, f"{count} participant(s) included.", messages.SUCCESS)

    @admin.action(description="Mark as returned on Prolific (frees the slot)")
    def mark_returned(self, request, queryset):
        count = services.participants_mark_returned(participant_ids=list(queryset.values_list("pk", flat=True)))
        self.message_user(request, f"{count} participant(s) marked returned.", messages.SUCCESS)
