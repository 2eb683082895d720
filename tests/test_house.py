"""The house rules over the checkout: ruff's lint and format, and mypy on the pure library and every
app (their settings are pyproject.toml's); each test fails with the tool's findings."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.paths import REPO

#: the executables of the environment running the tests (scripts/setup installs them in .venv)
BIN = Path(sys.executable).parent


def run(tool: str, *args: str, timeout: int = 300) -> subprocess.CompletedProcess[str]:
    executable = BIN / tool
    if not executable.exists():
        pytest.fail(f"{tool} is not installed next to {sys.executable}: run scripts/setup --dev")
    return subprocess.run([str(executable), *args], cwd=REPO, capture_output=True, text=True, timeout=timeout)


def test_ruff_finds_nothing_to_fix() -> None:
    result = run("ruff", "check", "--no-fix", "--output-format", "concise", ".")
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_code_is_formatted_as_ruff_formats_it() -> None:
    result = run("ruff", "format", "--check", ".")
    assert result.returncode == 0, result.stdout + result.stderr


def test_mypy_finds_no_type_errors_in_the_library_and_the_apps() -> None:
    # the Django plugin imports config.settings: its defaults need no environment variable set. A
    # first run (no .mypy_cache) takes about two minutes on a busy two-core machine, later ones seconds
    result = run("mypy", timeout=600)
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_docs_build_without_a_warning(tmp_path: Path) -> None:
    result = run("mkdocs", "build", "--strict", "--quiet", "--site-dir", str(tmp_path / "site"))
    assert result.returncode == 0, result.stdout + result.stderr
