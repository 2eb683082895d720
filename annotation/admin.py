"""The items' admin: read-only rows shared by every study, so no study filter and no identities here
(the answers' admin is in `studies.admin_answers`)."""

from __future__ import annotations

from django.contrib import admin

from annotation.models import BenchmarkAsset, Item


@admin.register(Item)
class ItemAdmin(admin.ModelAdmin):
    list_display = ["key", "benchmark", "split", "gold", "is_attention_check"]
    list_filter = ["benchmark", "split", "is_attention_check"]
    search_fields = ["key", "prompt"]
    readonly_fields = ["benchmark", "key", "split", "prompt", "gold", "meta", "is_attention_check"]

    def has_add_permission(self, request):
        return False  # items come from `manage.py import_benchmark` (`benchmark_import`)

    def has_change_permission(self, request, obj=None):
        return False


@admin.register(BenchmarkAsset)
class BenchmarkAssetAdmin(admin.ModelAdmin):
    list_display = ["key", "benchmark"]
    list_filter = ["benchmark"]

    def has_add_permission(self, request):
        return False  # assets come with the items (`benchmark_import`)

    def has_change_permission(self, request, obj=None):
        return False
