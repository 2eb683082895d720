"""The participants' admin: their list with flags, exclusion with a reason, erasure."""

from __future__ import annotations

from django import forms
from django.contrib import admin, messages
from django.db.models import DurationField, ExpressionWrapper, F, QuerySet
from django.shortcuts import render
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils.html import format_html, format_html_join

from studies.access import EXCLUDE_PARTICIPANT, has_permission, studies_for_user
from studies.admin.base import NoBulkDeletion, ResearcherAdmin, participant_label
from studies.admin.withholding import for_viewer, shown, withheld_for, withheld_participant
from studies.design.explanations_given import participant_explanations
from studies.models import Participant, StudyEvent, Unit
from studies.participants import decisions, erasure
from studies.participants.quality import (
    FLAGS,
    STORED_FLAGS,
    evidence,
    exclusion_reason,
    participant_evidence,
    participant_flags,
)
from studies.selectors import score_of, with_scores


class ExcludedFilter(admin.SimpleListFilter):
    title = "excluded"
    parameter_name = "excluded"

    def lookups(self, request, model_admin):
        return [("yes", "Excluded"), ("no", "Included")]

    def queryset(self, request, queryset):
        if self.value() in {"yes", "no"}:
            return queryset.filter(excluded=self.value() == "yes")
        return queryset


class ReviewFlagFilter(admin.SimpleListFilter):
    """The monitor's review flags (`monitor`), each participant judged within their own study."""

    title = "flagged for review"
    parameter_name = "flag"
    CHOICES: dict[str, tuple[str, set[str]]] = {
        "fast": ("Fast responder (3 SD or per-item time)", {"fast_completion", "fast_items"}),
        "straight_lining": ("Nearly always the same answer", {"straight_lining"}),
        "pasted": ("Pasted a written answer", {"pasted"}),
        "left_tab": ("Left the study's tab", {"left_tab"}),
        "canary": ("Canary word in an answer", {"canary"}),
        "bots": ("Bot (hidden field or no-script speed)", {"honeypot", "bot_speed"}),
        "model": ("Answers like a model's", set(STORED_FLAGS)),
        "any": ("Any flag", set(FLAGS)),
    }

    def lookups(self, request, model_admin):
        return [(value, label) for value, (label, _flags) in self.CHOICES.items()]

    def queryset(self, request, queryset):
        chosen = self.value()
        if chosen is None or chosen not in self.CHOICES:
            return queryset
        wanted = self.CHOICES[chosen][1]
        flagged = participant_flags(queryset)
        return queryset.filter(pk__in=[pk for pk, marks in flagged.items() if wanted & set(marks)])


def _answered_column(preserved_filters: str):
    """The *answered* column, its figure a link to the participant's review page (their answers in
    context), carrying the list's filters: a column of its own would push Excluded and Reason off
    the screen at 1,600 px."""

    @admin.display(description="answered", ordering="answered")
    def answered(participant: Participant) -> str:
        url = reverse("review:participant", args=[participant.study_id, participant.pk])
        return format_html(
            '<a href="{}?{}" class="review-link" title="review: answers, evidence and decision">{}/{}</a>',
            url,
            preserved_filters,
            participant.answered,
            participant.total,
        )

    return answered


class UnitFilter(admin.SimpleListFilter):
    """The units of the study filtered on; without one, the units of the user's studies."""

    title = "unit"
    parameter_name = "unit__id__exact"
    STUDY_PARAMETER = "study__id__exact"

    def lookups(self, request, model_admin):
        units = Unit.objects.filter(study__in=studies_for_user(request.user)).select_related("study")
        study = request.GET.get(self.STUDY_PARAMETER, "")
        if study.isdigit():
            return [(str(unit.pk), unit.label) for unit in units.filter(study_id=int(study))]
        return [(str(unit.pk), f"{unit.label} · {unit.study.name}") for unit in units]

    def queryset(self, request, queryset):
        value = self.value()
        return queryset.filter(unit_id=int(value)) if value and value.isdigit() else queryset


class ExclusionReasonForm(forms.Form):
    reason = forms.CharField(max_length=200, help_text="kept with each participant; exports and the API show it")


#: characters of an exclusion reason the list shows (the whole of it on hover and on the participant's page)
REASON_SHOWN = 36


@admin.register(Participant)
class ParticipantAdmin(NoBulkDeletion, ResearcherAdmin):
    study_path = "study"
    list_display = [
        "who",
        "prolific_pid",  # for those who may see it (IdentityGuard), as every identity below
        "unit_label",
        "status",
        "progress",
        "fails",
        "duration",
        "accuracy",
        "flag_column",
        "excluded",
        "reason",
    ]
    list_filter = [
        ("study", admin.RelatedOnlyFieldListFilter),
        "status",
        "step",
        ExcludedFilter,
        ReviewFlagFilter,
        UnitFilter,
    ]
    list_select_related = ["study", "unit"]
    actions = ["exclude_participants", "exclude_with_reason", "include_participants", "mark_returned", "erase_identity"]
    # exclusion changes through the actions (`participants_exclude` / `participants_include`) only
    readonly_fields = [
        "study",
        "unit",
        "pseudonym",
        "status",
        "step",
        "answered",
        "attention_failures",
        "excluded",
        "exclusion_reason",
        "exclusion_history",
        "started_at",
        "last_seen_at",
        "completed_at",
        "sequence",
        "current_shown_at",
        "is_imported",
        "closing_answers",
        "closing_answered_at",
        "review_flags",
        "review_page",
        "explanations",
        *Participant.IDENTITY_FIELDS,
    ]

    class Media:
        css = {"all": ["css/admin-review.css"]}

    def get_queryset(self, request):
        # scored as the review page scores: a written answer not verified yet waits, never wrong
        return with_scores(super().get_queryset(request)).annotate(
            _duration=ExpressionWrapper(F("completed_at") - F("started_at"), output_field=DurationField())
        )

    search_fields = ["pseudonym", "prolific_pid"]

    def get_fields(self, request, obj=None):
        return [
            "study",
            "unit",
            "pseudonym",
            *Participant.IDENTITY_FIELDS,
            "status",
            "step",
            "answered",
            "attention_failures",
            "excluded",
            "exclusion_reason",
            "exclusion_history",
            "started_at",
            "last_seen_at",
            "completed_at",
            "is_imported",
            "review_flags",
            "explanations",
            "review_page",
        ]

    def get_list_display(self, request):
        # the review page carries the list's filters back, as the admin's own pages do
        answered = _answered_column(self.get_preserved_filters(request))
        return [answered if name == "progress" else name for name in super().get_list_display(request)]

    @admin.display(description="review page")
    def review_page(self, participant: Participant) -> str:
        url = reverse("review:participant", args=[participant.study_id, participant.pk])
        return format_html('<a href="{}" id="review-page-link">answers, evidence and decision on one page</a>', url)

    def get_changelist_instance(self, request):
        """The list's page, each row carrying its review flags (computed once for the page's rows)."""
        changelist = super().get_changelist_instance(request)
        rows = list(changelist.result_list)  # evaluates the page once; the template reads the same rows
        flagged = participant_flags(Participant.objects.filter(pk__in=[row.pk for row in rows]))
        for row in rows:
            row.flag_names = flagged.get(row.pk, [])
        return changelist

    def has_exclude_permission(self, request) -> bool:
        return has_permission(request.user, EXCLUDE_PARTICIPANT)

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False  # every field is read-only: a participant changes through the actions

    def has_delete_permission(self, request, obj=None):
        return False  # a participant leaves through a data-erasure request (`participant_erase`), recorded

    def decision_warnings(self, participants: QuerySet[Participant], *, excluding: bool) -> list[str]:
        """Where excluding (or including again) `participants` would disagree with a decision taken
        elsewhere (Prolific's review and bonuses, added by the prolific app's admin): none here."""
        return []

    @admin.display(description="participant", ordering="pseudonym")
    def who(self, participant: Participant) -> str:
        return participant_label(participant.pseudonym, participant.study.name)

    @admin.display(description="unit", ordering="unit__position")
    def unit_label(self, participant: Participant) -> str:
        return participant.unit.label if participant.unit is not None else "—"

    @admin.display(description="checks failed", ordering="attention_failures")
    def fails(self, participant: Participant) -> int:
        return participant.attention_failures

    @admin.display(description="flags")
    def flag_column(self, participant: Participant) -> str:
        names = getattr(participant, "flag_names", [])
        if not names:
            return "—"
        return format_html_join(
            ", ", '<span class="flag" title="{}">{}</span>', ((FLAGS[n], n.replace("_", " ")) for n in names)
        )

    def changelist_view(self, request, extra_context=None):
        with withheld_for(request):
            return super().changelist_view(request, extra_context)

    def change_view(self, request, object_id, form_url="", extra_context=None):
        with withheld_for(request):
            page = super().change_view(request, object_id, form_url, extra_context)
            # rendered here: the read-only fields' texts are shown as this viewer may read them
            return page.render() if isinstance(page, TemplateResponse) else page

    def get_object(self, request, object_id, from_field=None):
        """The participant with the study's identities withheld from the reason and closing answers,
        for a viewer without the identity permission (both are read only here)."""
        return for_viewer(request, super().get_object(request, object_id, from_field), withheld_participant)

    @admin.display(description="reason", ordering="exclusion_reason")
    def reason(self, participant: Participant) -> str:
        said = shown(participant.study, participant.exclusion_reason)
        if not said:
            return "—"
        short = said if len(said) <= REASON_SHOWN else said[: REASON_SHOWN - 1] + "…"
        return format_html('<span title="{}">{}</span>', said, short)

    @admin.display(description="flagged for review")
    def review_flags(self, participant: Participant) -> str:
        """Each flag with its figures; flags never exclude by themselves (see the exclude actions)."""
        chosen = Participant.objects.filter(pk=participant.pk)
        names = participant_flags(chosen).get(participant.pk, [])
        if not names:
            return "—"
        figures = participant_evidence(chosen).get(participant.pk)
        return format_html(
            "<ul>{}</ul>",
            format_html_join("", "<li>{}</li>", ((evidence(n, participant.review_signals, figures),) for n in names)),
        )

    @admin.display(description="explanations (why they answered)")
    def explanations(self, participant: Participant) -> str:
        given = participant_explanations(participant)
        if not given:
            return "—"
        study = participant.study
        rows = ((f"#{e.position} {e.item_key}" if e.position else "at the end", shown(study, e.text)) for e in given)
        return format_html('<ul class="explanations">{}</ul>', format_html_join("", "<li>{}: {}</li>", rows))

    @admin.display(description="exclusions and inclusions (audit trail)")
    def exclusion_history(self, participant: Participant) -> str:
        kinds = (StudyEvent.Kind.EXCLUDED, StudyEvent.Kind.INCLUDED)
        events = [
            event
            for event in StudyEvent.objects.filter(study=participant.study_id, kind__in=kinds).select_related("actor")
            if participant.pseudonym in (event.data or {}).get("participants", [])
        ]
        if not events:
            return "—"
        study = participant.study
        rows = ((event.at, shown(study, event.summary), event.actor or "no one signed in") for event in events)
        return format_html("<ol>{}</ol>", format_html_join("", "<li>{} · {} <small>({})</small></li>", rows))

    @admin.display(description="answered", ordering="answered")
    def progress(self, participant: Participant) -> str:
        return f"{participant.answered}/{participant.total}"

    @admin.display(description="minutes", ordering="_duration")
    def duration(self, participant: Participant) -> str:
        seconds = participant.duration_seconds
        return f"{seconds / 60:.1f}" if seconds is not None else "—"

    @admin.display(description="accuracy", ordering="_accuracy")
    def accuracy(self, participant: Participant) -> str:
        """Right of the answers scored, as on the review page, and how many wait for their mark."""
        score = score_of(participant)
        shown = f"{score.share:.1%}" if score.share is not None else "—"
        if not score.unverified:
            return format_html('<span title="{} of {} right">{}</span>', score.right, score.scored, shown)
        return format_html(
            '<span title="{} of {} right">{}</span><br><small class="unverified">{} not verified yet</small>',
            score.right,
            score.scored,
            shown,
            score.unverified,
        )

    def _warn(self, request, participant_ids: list[int], *, excluding: bool) -> None:
        for warning in self.decision_warnings(Participant.objects.filter(pk__in=participant_ids), excluding=excluding):
            self.message_user(request, warning, messages.WARNING)

    def _confirm_conflicts(self, request, queryset, action: str, *, excluding: bool):
        """A page asking to confirm a change that would disagree with a Prolific decision or bonus
        (None when there is no such disagreement, or once confirmed)."""
        warnings = self.decision_warnings(queryset, excluding=excluding)
        if not warnings or "apply" in request.POST:
            return None
        return render(
            request,
            "admin/studies/participant/confirm_conflict.html",
            {
                **self.admin_site.each_context(request),
                "title": "Exclude participants" if excluding else "Include participants again",
                "participants": queryset.select_related("study"),
                "warnings": warnings,
                "verb": "Exclude" if excluding else "Include again",
                "opts": self.model._meta,
                "action": action,
            },
        )

    @admin.action(description="Exclude from results", permissions=["exclude"])
    def exclude_participants(self, request, queryset):
        asked = self._confirm_conflicts(request, queryset, "exclude_participants", excluding=True)
        if asked is not None:
            return asked
        chosen = list(queryset.values_list("pk", flat=True))
        count = decisions.participants_exclude(
            participant_ids=chosen, reason=f"excluded by {request.user.get_username()}", actor=request.user
        )
        self.message_user(request, f"{count} participant(s) excluded.", messages.SUCCESS)
        self._warn(request, chosen, excluding=True)

    @admin.action(description="Exclude from results, with a reason…", permissions=["exclude"])
    def exclude_with_reason(self, request, queryset):
        """Asks for the reason (suggesting the participants' review flags), then excludes; the list's
        filters are kept (the form posts back to the list's address, query string included)."""
        flagged = participant_flags(queryset)
        if "apply" in request.POST:
            form = ExclusionReasonForm(request.POST)
            if form.is_valid():
                chosen = list(queryset.values_list("pk", flat=True))
                count = decisions.participants_exclude(
                    participant_ids=chosen, reason=form.cleaned_data["reason"], actor=request.user
                )
                self.message_user(request, f"{count} participant(s) excluded.", messages.SUCCESS)
                self._warn(request, chosen, excluding=True)
                return None
        else:
            suggested = [name for name in FLAGS if any(name in marks for marks in flagged.values())]
            form = ExclusionReasonForm(initial={"reason": exclusion_reason(suggested)})
        figures = participant_evidence(queryset)
        rows = [
            (
                participant,
                [
                    evidence(name, participant.review_signals, figures.get(participant.pk))
                    for name in flagged.get(participant.pk, [])
                ],
            )
            for participant in queryset.select_related("study")
        ]
        return render(
            request,
            "admin/studies/participant/exclude_with_reason.html",
            {
                **self.admin_site.each_context(request),
                "title": "Exclude participants with a reason",
                "rows": rows,
                "form": form,
                "warnings": self.decision_warnings(queryset, excluding=True),
                "opts": self.model._meta,
                "action": "exclude_with_reason",
            },
        )

    @admin.action(description="Include in results again", permissions=["exclude"])
    def include_participants(self, request, queryset):
        asked = self._confirm_conflicts(request, queryset, "include_participants", excluding=False)
        if asked is not None:
            return asked
        chosen = list(queryset.values_list("pk", flat=True))
        count = decisions.participants_include(participant_ids=chosen, actor=request.user)
        self.message_user(request, f"{count} participant(s) included.", messages.SUCCESS)
        self._warn(request, chosen, excluding=False)

    @admin.action(description="Mark as returned on Prolific (frees the slot)", permissions=["exclude"])
    def mark_returned(self, request, queryset):
        count = decisions.participants_mark_returned(participant_ids=list(queryset.values_list("pk", flat=True)))
        self.message_user(request, f"{count} participant(s) marked returned.", messages.SUCCESS)

    def has_erase_identity_permission(self, request) -> bool:
        return request.user.has_perm("studies.erase_identity")

    @admin.action(
        description="Erase Prolific identity (data-erasure request; answers kept)…", permissions=["erase_identity"]
    )
    def erase_identity(self, request, queryset):
        """Lists whose identity would be erased (and who is skipped), then erases on confirmation only."""
        chosen = queryset.select_related("study").order_by("study_id", "pk")
        erasable = [p for p in chosen if p.erased_at is None and not p.is_imported]
        if "apply" not in request.POST:
            return render(
                request,
                "admin/studies/participant/erase_identity.html",
                {
                    **self.admin_site.each_context(request),
                    "title": "Erase Prolific identities",
                    "erasable": erasable,
                    "skipped": [p for p in chosen if p not in erasable],
                    "opts": self.model._meta,
                    "action": "erase_identity",
                },
            )
        for participant in erasable:
            erasure.participant_erase(study=participant.study, prolific_pid=participant.prolific_pid)
        erased = len(erasable)
        self.message_user(
            request, f"{erased} participant identit{'y' if erased == 1 else 'ies'} erased.", messages.SUCCESS
        )
