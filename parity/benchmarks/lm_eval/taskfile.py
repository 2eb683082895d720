"""Reading a task YAML without running it.

The harness reads a task file with a YAML loader whose `!function utils.process_docs` tag imports
`utils.py` beside the file, and so runs that module's code, while the task is being built: before
Parity could refuse it. Here a plain safe YAML loader reads the file, the files it includes and
every other task YAML the harness would index beside it (`**/*.yaml` of its directory), and a
`!function` tag is only noted, with its file and line, never resolved.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from ..base import DatasetError

FUNCTION_TAG = "!function"
#: directories the harness's task index leaves out
_IGNORED_DIRS = {"__pycache__", ".ipynb_checkpoints"}


@dataclass(frozen=True)
class FunctionUse:
    """One `!function` tag: where it is written and what it would import."""

    file: Path
    line: int
    spec: str

    def __str__(self) -> str:
        return f"{self.file}, line {self.line}: {FUNCTION_TAG} {self.spec}"


def _loader(path: Path, found: list[FunctionUse]) -> type[yaml.SafeLoader]:
    """A safe loader (no Python objects) that notes each `!function` instead of importing it."""

    class Loader(yaml.SafeLoader):
        pass

    def function(loader: yaml.SafeLoader, node: yaml.Node) -> str:
        spec = str(loader.construct_scalar(node))  # type: ignore[arg-type]
        found.append(FunctionUse(path, node.start_mark.line + 1, spec))
        return f"{FUNCTION_TAG} {spec}"

    Loader.add_constructor(FUNCTION_TAG, function)
    return Loader


def _read(path: Path, found: list[FunctionUse], seen: tuple[Path, ...] = ()) -> dict[str, Any]:
    """The config of `path` with its `include`s merged in as the harness merges them (the included
    first, the file's own keys winning); raises OSError or yaml.YAMLError or ValueError."""
    path = path.expanduser().resolve()
    if path in seen:
        raise ValueError(f"include cycle at {path}")
    with path.open("rb") as handle:
        config = yaml.load(handle, Loader=_loader(path, found))  # noqa: S506 (a SafeLoader)
    if not isinstance(config, dict):
        raise ValueError(f"expected a mapping, not {type(config).__name__}")
    includes = config.pop("include", None)
    if includes is None:
        return config
    merged: dict[str, Any] = {}
    for include in includes if isinstance(includes, list) else [includes]:
        target = Path(str(include))
        included = _read(target if target.is_absolute() else path.parent / target, found, (*seen, path))
        included.pop("task_list", None)
        merged.update(included)
    merged.update(config)
    return merged


def _neighbours(directory: Path) -> Iterator[Path]:
    for path in sorted(directory.glob("**/*.yaml")):
        if not _IGNORED_DIRS.intersection(path.parts):
            yield path


def read_task_file(path: Path, label: str) -> tuple[dict[str, Any], list[FunctionUse]]:
    """(the task file's config, every `!function` the harness could resolve loading it).

    The uses are those of the file, of what it includes, and of every task YAML in its directory
    and below (the harness indexes them all, and a group's tasks may be any of them); a neighbour
    the harness could not read either is skipped, as its index skips it."""
    found: list[FunctionUse] = []
    try:
        config = _read(path, found)
    except (OSError, yaml.YAMLError, ValueError) as exc:
        raise DatasetError(label, f"not a readable task YAML ({type(exc).__name__}: {exc})") from exc
    for neighbour in _neighbours(path.parent):
        if neighbour != path:
            try:
                _read(neighbour, found)
            except (OSError, yaml.YAMLError, ValueError):
                continue
    unique = sorted(set(found), key=lambda use: (use.file != path, str(use.file), use.line))
    return config, unique


def refuse_code(label: str, uses: list[FunctionUse]) -> None:
    """A task that would import Python code is refused before the harness reads it, naming where."""
    if not uses:
        return
    listed = "; ".join(str(use) for use in uses[:5]) + (f"; and {len(uses) - 5} more" if len(uses) > 5 else "")
    raise DatasetError(
        label,
        f"the task would run Python code: {listed}. The harness resolves {FUNCTION_TAG} by importing "
        "the module it names, which runs that module; Parity refuses it. Remove it (a task file "
        "beside this one counts too: keep the task in a directory of its own), or, having read that "
        "code, import with --trust-task-code",
    )
