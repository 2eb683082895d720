"""What the model commands share: the options that name a study and a model, the study they name,
and the model spec."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from django.core.management.base import CommandError, CommandParser

from modelruns.models import ModelSpec
from modelruns.services import ApiOptions, modelspec_get_or_create
from parity.engine.api import FEATURES
from studies.models import Study


def add_model_options(parser: CommandParser, flag: str, kinds: Sequence[str], setting_help: str) -> None:
    """The study, the model (`flag`, e.g. --model), its kind, revision, dtype and device, and the
    setting pairs."""
    parser.add_argument("--study", required=True, help="the study's name (or id)")
    parser.add_argument(
        flag,
        required=True,
        help="a Hugging Face id, a local path, or an alias (smollm2); with --kind api, the server's name for the model",
    )
    parser.add_argument("--kind", default=ModelSpec.Kind.CAUSAL, choices=list(kinds))
    parser.add_argument("--revision", default="", help="Hub branch, tag or commit")
    parser.add_argument("--dtype", default=ModelSpec.Dtype.FLOAT32, choices=ModelSpec.Dtype.values)
    parser.add_argument("--device", default="auto", help="auto, cpu, cuda, cuda:1 ...")
    parser.add_argument("--setting", nargs="+", action="extend", default=[], metavar="KEY=VALUE", help=setting_help)
    if ModelSpec.Kind.API in kinds:
        api = parser.add_argument_group("models behind an OpenAI-compatible API (--kind api)")
        api.add_argument("--api-base-url", default="", help="the server's base URL, e.g. http://127.0.0.1:8000/v1")
        api.add_argument(
            "--api-key-env",
            default="",
            help="the NAME of the environment variable that holds the key on the workers, e.g. "
            "OPENAI_API_KEY (the key itself is never stored); blank: no key",
        )
        api.add_argument("--api-concurrency", type=int, default=4, help="requests in flight at once")
        api.add_argument(
            "--api-features",
            nargs="+",
            default=[],
            choices=FEATURES,
            help="what the server can do; left out: asked of the server when the run starts",
        )
        api.add_argument("--api-top-k", type=int, default=20, help="next-token log-probs asked for in a readout")


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
    api = None
    if options["kind"] == ModelSpec.Kind.API:
        api = ApiOptions(
            base_url=options["api_base_url"],
            key_env=options["api_key_env"],
            concurrency=options["api_concurrency"],
            features=tuple(options["api_features"]),
            top_k=options["api_top_k"],
        )
    return modelspec_get_or_create(
        model=options[model],
        revision=options["revision"],
        dtype=options["dtype"],
        device=options["device"],
        kind=options["kind"],
        api=api,
    )
