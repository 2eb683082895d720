"""Which models a run may load: the `PARITY_MODEL_SOURCES` allow-list.

A run loads whatever its spec names, on the machine that runs the workers: a Hub id is downloaded
and executed (custom code aside, weights are still large, untrusted input), a local path reads the
server's disk. So a run may load only what the operator listed. Each entry of the list is one of:

- an alias shipped with the engine (`smollm2`), or an exact Hub id (`google/flan-t5-small`);
- a Hub organisation, written with a trailing slash (`HuggingFaceTB/`): every model of it;
- a directory, written as an absolute path (`/srv/models`): every model folder or .gguf file in it;
- an API server, written as a URL (`https://api.openai.com/v1`, `http://10.0.0.5:8000/`): every
  model behind that URL (the workers send it prompts, and the key the spec names).

Before any of that, the name itself is checked (`model_name_problem`): at most `MAX_MODEL_CHARS`
characters, no part between slashes longer than a file name may be (`MAX_PART_BYTES`), no control
character. Checking a source may look on the disk, and a name the file system cannot take (a part of
300 characters, a NUL) must be refused in words, not fail there.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable
from pathlib import Path

from django.conf import settings

from parity.engine.loading import ALIASES

SETTING = "PARITY_MODEL_SOURCES"
#: the longest model name (`ModelSpec.model`'s column): a Hub id is at most 96 characters
MAX_MODEL_CHARS = 500
#: the longest part between slashes, in UTF-8 bytes: a file name's limit on the common file systems
MAX_PART_BYTES = 255


def model_name_problem(model: str) -> str | None:
    """Why `model` cannot name a model at all, in words; None when it can. Nothing is looked up."""
    name = model.strip()
    if not name:
        return "a model is needed: a Hugging Face id, a local path or an alias such as smollm2"
    if len(name) > MAX_MODEL_CHARS:
        return f"a model name is at most {MAX_MODEL_CHARS} characters (this one has {len(name)})"
    if any(unicodedata.category(char).startswith("C") for char in name):
        return "a model name cannot hold control characters (a line break, a tab, a NUL, ...)"
    if any(len(part.encode()) > MAX_PART_BYTES for part in name.split("/")):
        return f"no part of a model name between slashes may be longer than {MAX_PART_BYTES} bytes"
    return None


def _is_directory_entry(entry: str) -> bool:
    return entry.startswith(("/", "~"))


def _is_local(model: str) -> bool:
    if model.startswith(("/", "~", ".")):
        return True
    try:
        return Path(model).expanduser().exists()
    except (OSError, ValueError):  # a name the file system cannot take names nothing on it
        return False


def _is_url(text: str) -> bool:
    return text.lower().startswith(("http://", "https://"))


def _url_inside(url: str, entry: str) -> bool:
    url, entry = url.rstrip("/"), entry.rstrip("/")
    return url == entry or url.startswith(entry + "/")


def _inside(path: Path, directory: Path) -> bool:
    return path == directory or directory in path.parents


def source_allowed(model: str, allowed: Iterable[str]) -> bool:
    """Whether `model` (as a spec names it) is covered by one of the `allowed` entries."""
    model = model.strip()
    entries = [entry.strip() for entry in allowed if entry.strip()]
    if model_name_problem(model) is not None:
        return False
    if _is_url(model):
        return any(_url_inside(model, entry) for entry in entries if _is_url(entry))
    if model.lower() in ALIASES:
        return model.lower() in {entry.lower() for entry in entries}
    if _is_local(model):
        # resolved, so that `..` and symbolic links cannot step out of an allowed directory
        path = Path(model).expanduser().resolve()
        return any(_inside(path, Path(entry).expanduser().resolve()) for entry in entries if _is_directory_entry(entry))
    hub_id = model.lower()
    for entry in (entry.lower() for entry in entries if not _is_directory_entry(entry) and not _is_url(entry)):
        if hub_id == entry or (entry.endswith("/") and hub_id.startswith(entry) and "/" not in hub_id[len(entry) :]):
            return True
    return False


def allowed_sources() -> list[str]:
    return list(getattr(settings, SETTING, []))


def model_source_problem(model: str) -> str | None:
    """Why a run may not load `model`, in words for the researcher; None when it may."""
    problem = model_name_problem(model)
    if problem is not None:
        return problem
    allowed = allowed_sources()
    if source_allowed(model, allowed):
        return None
    listed = ", ".join(allowed) if allowed else "nothing"
    return (
        f"{model.strip()!r} is not an allowed model source. Runs may load only the models in "
        f"{SETTING} (now: {listed}); ask the operator to add the model, its Hub organisation "
        "(ending in /), its directory, or its API server's URL."
    )
