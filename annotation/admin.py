from __future__ import annotations

from django.contrib import admin

from annotation.models import BenchmarkAsset, Item, Response


@admin.register(Item)
class ItemAdmin(admin.ModelAdmin):
    list_display = ["key", "benchmark", "split", "gold", "is_attention_check"]
    list_filter = ["benchmark", "split", "is_attention_check"]
    search_fields = ["key", "prompt"]
    readonly_fields = ["benchmark", "key", "split", "prompt", "gold", "meta", "is_attention_check"]


@admin.register(BenchmarkAsset)
class BenchmarkAssetAdmin(admin.ModelAdmin):
    list_display = ["key", "benchmark"]
    list_filter = ["benchmark"]


class CorrectFilter(admin.SimpleListFilter):
    title = "correctness"
    parameter_name = "correct"

    def lookups(self, request, model_admin):
        return [("yes", "Correct"), ("no", "Wrong"), ("invalid", "Invalid answer")]

    def queryset(self, request, queryset):
        value = self.value()
        if value == "invalid":
            return queryset.filter(valid=False)
        if value in {"yes", "no"}:
            return queryset.filter(correct=value == "yes")
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


@admin.register(Response)
class ResponseAdmin(admin.ModelAdmin):
    """Answers are evidence: they can be read and filtered, never edited or added here."""

    list_display = ["participant", "position", "item", "raw_answer", "answer", "correct", "duration_ms", "answered_at"]
    list_filter = ["participant__study", "participant__unit", ItemTypeFilter, CorrectFilter, "item__split"]
    list_select_related = ["participant", "participant__study", "item"]
    search_fields = ["participant__pseudonym", "item__key", "raw_answer"]

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False
