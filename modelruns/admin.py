from __future__ import annotations

from typing import TYPE_CHECKING, TypedDict

from django.contrib import admin, messages
from django.db.models import Count, Q
from django.http import HttpRequest
from django.urls import reverse
from django.utils.html import format_html

from modelruns import services
from modelruns.models import InstructionScore, ModelResponse, ModelRun, ModelShard, ModelSpec
from modelruns.selectors import specs_for_user
from studies.access import RUN_MODEL, has_permission, studies_for_user
from studies.admin.base import ResearcherAdmin

if TYPE_CHECKING:
    from django_stubs_ext import WithAnnotations


class _SpecCounts(TypedDict):
    _runs: int


class _RunCounts(TypedDict):
    _answered: int
    _correct: int
    _items: int


@admin.register(ModelSpec)
class ModelSpecAdmin(ResearcherAdmin):
    """The specs a researcher may see (`specs_for_user`): those of their studies' runs and those they
    created; their run counts count those runs only."""

    list_display = ["name", "model", "revision", "dtype", "device", "kind", "api_base_url", "n_runs", "created_at"]
    list_filter = ["kind", "dtype", "device"]
    search_fields = ["name", "model", "api_base_url"]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False  # a spec is made when a run starts (`modelspec_get_or_create` checks the model's source)

    def has_change_permission(self, request: HttpRequest, obj=None) -> bool:
        return False

    def get_exclude(self, request: HttpRequest, obj=None):
        # who made a spec that several researchers' runs share is for superusers to know
        return [] if request.user.is_superuser else ["created_by"]

    def get_queryset(self, request: HttpRequest):
        specs = super().get_queryset(request)
        if request.user.is_superuser:
            return specs.annotate(_runs=Count("runs"))
        seen = specs.filter(pk__in=specs_for_user(request.user).values("pk"))
        return seen.annotate(_runs=Count("runs", filter=Q(runs__study__in=studies_for_user(request.user))))

    @admin.display(description="runs", ordering="_runs")
    def n_runs(self, spec: WithAnnotations[ModelSpec, _SpecCounts]) -> int:
        return spec._runs


#: a shard as its run's page lists it, every field read-only (workers write them)
_SHARD_FIELDS = (
    "index",
    "size",
    "status",
    "attempts",
    "errors",
    "worker",
    "heartbeat_at",
    "reclaims",
    "reclaimed_at",
    "finished_at",
)


class ModelShardInline(admin.TabularInline):
    model = ModelShard
    fields = _SHARD_FIELDS
    readonly_fields = _SHARD_FIELDS
    extra = 0
    can_delete = False
    show_change_link = True

    def has_add_permission(self, request: HttpRequest, obj=None) -> bool:
        return False


@admin.register(ModelRun)
class ModelRunAdmin(ResearcherAdmin):
    study_path = "study"
    list_display = [
        "id",
        "study",
        "spec",
        "setting_text",
        "status",
        "progress",
        "accuracy",
        "started_at",
        "finished_at",
    ]
    # RelatedOnly: the filter offers the specs of the runs listed, not every researcher's
    list_filter = [
        "status",
        ("spec", admin.RelatedOnlyFieldListFilter),
        "study__benchmark",
        ("study", admin.RelatedOnlyFieldListFilter),
    ]
    list_select_related = ["study", "spec"]
    search_fields = ["study__name", "spec__name", "spec__model"]
    readonly_fields = [
        "study",
        "spec",
        "setting",
        "status",
        "progress_done",
        "progress_total",
        "shard_size",
        "lease_seconds",
        "created_at",
        "started_at",
        "finished_at",
        "engine_version",
        "model_identity",
        "prompt_tokens",
        "completion_tokens",
        "api_requests",
        "error",
        "runs_page",
    ]
    exclude = ["setting_key"]
    inlines = [ModelShardInline]
    actions = ["cancel_runs", "resume_runs"]

    def get_queryset(self, request: HttpRequest):
        return (
            super()
            .get_queryset(request)
            .annotate(
                # as the results count: answers to items with a right answer; a setting may answer an
                # item more than once (MiQA: both presentations), so the items are counted too
                _answered=Count("responses", filter=~Q(responses__item__gold="")),
                _correct=Count("responses", filter=Q(responses__correct=True) & ~Q(responses__item__gold="")),
                _items=Count("responses__item", distinct=True),
            )
        )

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False  # runs start from the study's runs page or `manage.py run_model`

    def has_change_permission(self, request: HttpRequest, obj=None) -> bool:
        return False  # a run changes through its actions (cancel, resume) and its workers

    def has_run_permission(self, request: HttpRequest) -> bool:
        return has_permission(request.user, RUN_MODEL)

    @admin.display(description="setting")
    def setting_text(self, run: ModelRun) -> str:
        return run.setting_label()

    @admin.display(description="items done")
    def progress(self, run: ModelRun) -> str:
        return f"{run.progress_done}/{run.progress_total}"

    @admin.display(description="accuracy", ordering="_correct")
    def accuracy(self, run: WithAnnotations[ModelRun, _RunCounts]) -> str:
        if not run._answered:
            return "—"
        share = f"{100 * run._correct / run._answered:.1f}% ({run._correct}/{run._answered}"
        # more answers than items: say so, or 300 items done read against 600 answers looks wrong
        return share + (f" answers to {run._items} items)" if run._answered != run._items else ")")

    @admin.display(description="study's runs page")
    def runs_page(self, run: ModelRun) -> str:
        url = reverse("modelruns:study_runs", args=[run.study_id])
        return format_html('<a href="{}">{}</a>', url, url)

    @admin.action(description="Cancel the selected runs", permissions=["run"])
    def cancel_runs(self, request: HttpRequest, queryset) -> None:
        runs = [services.modelrun_cancel(run=run, actor=request.user) for run in queryset]
        stopping = sum(run.is_stopping for run in runs)
        self.message_user(
            request,
            f"Cancelled {len(runs) - stopping} run(s); {stopping} running run(s) stop at their next batch.",
            messages.SUCCESS,
        )

    @admin.action(
        description="Resume the selected runs (queue unfinished shards; retry failed ones)", permissions=["run"]
    )
    def resume_runs(self, request: HttpRequest, queryset) -> None:
        resumed = 0
        for run in queryset:
            try:
                services.modelrun_resume(run=run)
                resumed += 1
            except services.ModelRunError as exc:
                self.message_user(request, f"Run {run.pk}: {exc}", messages.WARNING)
        self.message_user(request, f"Resumed {resumed} run(s).", messages.SUCCESS)


@admin.register(ModelResponse)
class ModelResponseAdmin(ResearcherAdmin):
    study_path = "run__study"
    list_display = ["run", "item", "variant", "answer", "valid", "correct", "truncated_tokens"]
    list_filter = [
        "correct",
        "valid",
        ("run__spec", admin.RelatedOnlyFieldListFilter),
        ("run", admin.RelatedOnlyFieldListFilter),
    ]
    list_select_related = ["run__spec", "run__study", "item"]
    search_fields = ["item__key", "answer", "raw_answer"]
    readonly_fields = [
        "run",
        "item",
        "variant",
        "raw_answer",
        "answer",
        "valid",
        "correct",
        "scores",
        "truncated_tokens",
        "created_at",
    ]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj=None) -> bool:
        return False


@admin.register(InstructionScore)
class InstructionScoreAdmin(ResearcherAdmin):
    """Written and gold instructions as executed by a chosen model (`manage.py score_instructions`)."""

    study_path = "study"
    list_display = [
        "study",
        "executor",
        "source",
        "task",
        "instruction",
        "execution_accuracy",
        "reference_similarity",
        "similarity_model",
        "similarity_layer",
        "similarity_rescaled",
    ]
    list_filter = [
        "source",
        ("executor", admin.RelatedOnlyFieldListFilter),
        "similarity_rescaled",
        ("study", admin.RelatedOnlyFieldListFilter),
        "task",
    ]
    list_select_related = ["study", "executor"]
    search_fields = ["instruction", "task"]
    readonly_fields = [
        "study",
        "executor",
        "source",
        "task",
        "response",
        "gold_index",
        "instruction",
        "execution_accuracy",
        "reference_similarity",
        "similarity_model",
        "similarity_scorer",
        "similarity_layer",
        "similarity_rescaled",
        "similarity_baseline",
        "setting",
        "outputs",
        "created_at",
    ]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj=None) -> bool:
        return False
