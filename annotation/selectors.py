"""Reads about items."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from django.conf import settings
from django.db.models import Q, QuerySet

from annotation.models import BenchmarkAsset, Item, ItemSet
from parity import benchmarks
from parity.benchmarks.base import ItemData


def item_data(item: Item) -> ItemData:
    return ItemData(
        key=item.key,
        split=item.split,
        prompt=item.prompt,
        gold=item.gold,
        meta=item.meta,
        is_attention_check=item.is_attention_check,
    )


def datasets_dir(benchmark: str) -> Path | None:
    """Where the benchmark's published files are read in place: DATASETS_DIR/<benchmark> (None when
    DATASETS_DIR is not set). The environment wins over the settings, so a command sees a changed one."""
    shared = os.environ.get("DATASETS_DIR") or settings.DATASETS_DIR
    return Path(shared) / benchmark if shared else None


def download_dir(benchmark: str) -> Path:
    """Where the benchmark's files go when they are downloaded from their pinned URLs."""
    return Path(settings.VAR_DIR) / "datasets" / benchmark


def item_sets_for_user(user: Any) -> QuerySet[ItemSet]:
    """The item sets `user` may see and build studies on: their own and the open ones (imported by
    the operator, with no owner); every set for a superuser."""
    if user is None or not user.is_authenticated:
        return ItemSet.objects.none()
    if user.is_superuser:
        return ItemSet.objects.all()
    return ItemSet.objects.filter(Q(owner__isnull=True) | Q(owner=user))


def item_set_usable(*, user: Any, benchmark: str, name: str) -> bool:
    """Whether `user` may build a study on the item set `name`: it exists, and it is theirs, or open
    to all (imported by the operator), or `user` is a superuser."""
    return item_sets_for_user(user).filter(benchmark=benchmark, name=name).exists()


def _seen_by(user: Any) -> Q:
    """Rows (items, assets) of the benchmarks without named sets, and of the sets `user` may use
    (a set's rows are those whose key starts with the set's scope, "NAME/")."""
    scope = Q(benchmark__in=[name for name, definition in benchmarks.REGISTRY.items() if not definition.named_sets])
    for benchmark, name in item_sets_for_user(user).values_list("benchmark", "name"):
        if benchmark in benchmarks.REGISTRY:
            scope |= Q(benchmark=benchmark, key__startswith=benchmarks.get(benchmark).item_scope({"item_set": name}))
    return scope


def items_for_user(user: Any) -> QuerySet[Item]:
    """The items `user` may read in the admin: every published benchmark's, and those of the item
    sets they may use (`item_sets_for_user`); another researcher's set stays theirs, gold included."""
    if user is None or not user.is_authenticated or not user.is_active:
        return Item.objects.none()
    return Item.objects.all() if user.is_superuser else Item.objects.filter(_seen_by(user))


def assets_for_user(user: Any) -> QuerySet[BenchmarkAsset]:
    """The benchmark assets `user` may read, by the rule of `items_for_user`."""
    if user is None or not user.is_authenticated or not user.is_active:
        return BenchmarkAsset.objects.none()
    return BenchmarkAsset.objects.all() if user.is_superuser else BenchmarkAsset.objects.filter(_seen_by(user))


def inspect_task_file_allowed(task: str) -> bool:
    """Whether `task` (what `inspect eval` takes) is safe to load from a page: a task an installed
    package registers (package/name), or a task file inside a folder the operator listed in
    PARITY_INSPECT_TASK_DIRS (loading a task file runs its code)."""
    file_name = task.partition("@")[0]
    if not file_name.endswith(".py"):
        return task.count("/") == 1 and "@" not in task
    path = Path(file_name)
    if not path.is_absolute():
        return False
    resolved = path.resolve()
    return any(resolved.is_relative_to(Path(folder).resolve()) for folder in settings.PARITY_INSPECT_TASK_DIRS)
