"""What the model commands share: the options that name a study and a model, the study they name,
and the model spec."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from django.core.management.base import CommandError, CommandParser

from modelruns.models import ModelSpec
from modelruns.services import modelspec_get_or_create
from studies.models import Study


def add_model_options(parser: CommandParser, flag: str, kinds: Sequence[str], setting_help: str) -> None:
    """The study, the model (`flag`, e.g. --model), its kind, revision, dtype and device, and the
    setting pairs."""
    parser.add_argument("--study", required=True, help="the study's name (or id)")
    parser.add_argument(flag, required=True, help="a Hugging Face id, a local path, or an alias (smollm2)")
    parser.add_argument("--kind", default=ModelSpec.Kind.CAUSAL, choices=list(kinds))
    parser.add_argument("--revision", default="", help="Hub branch, tag or commit")
    parser.add_argument("--dtype", default=ModelSpec.Dtype.FLOAT32, choices=ModelSpec.Dtype.values)
    parser.add_argument("--device", default="auto", help="auto, cpu, cuda, cuda:1 ...")
    parser.add_argument("--setting", nargs="+", action="extend", default=[], metavar="KEY=VALUE", help=setting_help)


def study_named(name: str) -> Study:
    """The study with this name, or else with this id; CommandError when there is none."""
    study = Study.objects.filter(name=name).first()
    if study is None and name.isdigit():
        study = Study.objects.filter(pk=int(name)).first()
    if study is None:
        raise CommandError(f"no study named {name!r}")
    return study


def model_spec(options: Mapping[str, Any], model: str) -> ModelSpec:
    """The spec of the model the options name (`model`: the option that holds its name)."""
    return modelspec_get_or_create(model=options[model], revision=options["revision"], dtype=options["dtype"],
                                   device=options["device"], kind=options["kind"])
