"""The items' admin: read-only rows, no identities here (the answers' admin is in
`studies.admin.answers`). A researcher sees the published benchmarks' rows and those of the item
sets they may use (`annotation.selectors`): another researcher's set, its keys and its gold, is
absent from the lists, the search and the change pages; superusers see every row."""

from __future__ import annotations

from django.contrib import admin
from django.db.models import QuerySet
from django.http import HttpRequest

from annotation.models import BenchmarkAsset, Item, ItemSet
from annotation.selectors import assets_for_user, item_sets_for_user, items_for_user


@admin.register(Item)
class ItemAdmin(admin.ModelAdmin):
    list_display = ["key", "benchmark", "split", "gold", "is_attention_check"]
    list_filter = ["benchmark", "split", "is_attention_check"]
    search_fields = ["key", "prompt"]
    readonly_fields = ["benchmark", "key", "split", "prompt", "gold", "meta", "is_attention_check"]

    def get_queryset(self, request: HttpRequest) -> QuerySet[Item]:
        return items_for_user(request.user)

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False  # items come from `manage.py import_benchmark` (`benchmark_import`)

    def has_change_permission(self, request: HttpRequest, obj: Item | None = None) -> bool:
        return False


@admin.register(ItemSet)
class ItemSetAdmin(admin.ModelAdmin):
    list_display = ["name", "benchmark", "owner", "created_at"]
    list_filter = ["benchmark"]
    list_select_related = ["owner"]
    search_fields = ["name"]
    readonly_fields = ["benchmark", "name", "owner", "created_at"]

    def get_queryset(self, request: HttpRequest) -> QuerySet[ItemSet]:
        return item_sets_for_user(request.user).select_related("owner")

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False  # a set is made by its first import (the items page, `import_benchmark --name`)

    def has_change_permission(self, request: HttpRequest, obj: ItemSet | None = None) -> bool:
        return False


@admin.register(BenchmarkAsset)
class BenchmarkAssetAdmin(admin.ModelAdmin):
    list_display = ["key", "benchmark"]
    list_filter = ["benchmark"]

    def get_queryset(self, request: HttpRequest) -> QuerySet[BenchmarkAsset]:
        return assets_for_user(request.user)

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False  # assets come with the items (`benchmark_import`)

    def has_change_permission(self, request: HttpRequest, obj: BenchmarkAsset | None = None) -> bool:
        return False
