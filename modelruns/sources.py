"""Which models a run may load: the `PARITY_MODEL_SOURCES` allow-list.

A run loads whatever its spec names, on the machine that runs the workers: a Hub id is downloaded
and executed (custom code aside, weights are still large, untrusted input), a local path reads the
server's disk. So a run may load only what the operator listed. Each entry of the list is one of:

- an alias shipped with the engine (`smollm2`), or an exact Hub id (`google/flan-t5-small`);
- a Hub organisation, written with a trailing slash (`HuggingFaceTB/`): every model of it;
- a directory, written as an absolute path (`/srv/models`): every model folder or .gguf file in it;
- an API server, written as a URL (`https://api.openai.com/v1`, `http://10.0.0.5:8000/`): every
  model behind that URL (the workers send it prompts, and the key the spec names).
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from django.conf import settings

from parity.engine.loading import ALIASES

SETTING = "PARITY_MODEL_SOURCES"


def _is_directory_entry(entry: str) -> bool:
    return entry.startswith(("/", "~"))


def _is_local(model: str) -> bool:
    return model.startswith(("/", "~", ".")) or Path(model).expanduser().exists()


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
    if not model:
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
    allowed = allowed_sources()
    if source_allowed(model, allowed):
        return None
    listed = ", ".join(allowed) if allowed else "nothing"
    return (
        f"{model.strip()!r} is not an allowed model source. Runs may load only the models in "
        f"{SETTING} (now: {listed}); ask the operator to add the model, its Hub organisation "
        "(ending in /), its directory, or its API server's URL."
    )
