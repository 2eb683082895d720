"""The layers declared in pyproject.toml hold: for imports (import-linter's contracts, which count
imports inside functions and under `if TYPE_CHECKING` too) and for relations between models, which
name their targets by string and so are no imports."""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

from django.apps import apps

REPO = Path(__file__).resolve().parents[1]
CONTRACTS = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["importlinter"]["contracts"]


def test_the_import_contracts_are_kept() -> None:
    lint = Path(sys.executable).with_name("lint-imports")
    result = subprocess.run([str(lint), "--no-cache"], cwd=REPO, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


def layer_rank() -> dict[str, int]:
    """Each app of the apps' layers contract, with its height (higher imports lower)."""
    layers = next(contract for contract in CONTRACTS if "containers" not in contract and contract["type"] == "layers")
    height = len(layers["layers"])
    return {name.strip(): height - index for index, layer in enumerate(layers["layers"]) for name in layer.split("|")}


def test_models_relate_only_to_their_own_layer_or_lower_ones() -> None:
    rank = layer_rank()
    upward = []
    for model in apps.get_models():
        here = model.__module__.split(".")[0]
        for field in model._meta.get_fields():
            if not field.is_relation or field.auto_created or field.related_model is None:
                continue
            there = field.related_model.__module__.split(".")[0]
            if here in rank and there in rank and there != here and rank[there] >= rank[here]:
                upward.append(f"{model.__name__}.{field.name} -> {field.related_model.__name__}")
    assert upward == []


def test_the_rank_reads_the_declared_layers() -> None:
    rank = layer_rank()
    assert rank["config"] > rank["results"] == rank["participation"] > rank["prolific"] == rank["modelruns"]
    assert rank["modelruns"] > rank["studies"] > rank["annotation"] > rank["parity"]
