"""Reads about items."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from django.conf import settings

from annotation.models import Item, ItemSet
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


def item_set_usable(*, user: Any, benchmark: str, name: str) -> bool:
    """Whether `user` may build a study on the item set `name`: it exists, and it is theirs, or open
    to all (imported by the operator), or `user` is a superuser."""
    found = ItemSet.objects.filter(benchmark=benchmark, name=name).first()
    return found is not None and (found.owner_id is None or found.owner_id == user.pk or user.is_superuser)
