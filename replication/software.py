"""The software a bundle was made with: Parity's commit (or version), Python, and every installed package."""

from __future__ import annotations

import functools
import platform
import subprocess
import sys
from importlib import metadata
from typing import Any

from django.conf import settings

from parity.engine import ENGINE_VERSION


def parity_version() -> dict[str, Any]:
    """The git commit of this checkout (and whether it has uncommitted changes), else the installed
    package's version, else "unknown"."""
    try:
        commit = subprocess.run(
            ["git", "rev-parse", "HEAD"], cwd=settings.BASE_DIR, capture_output=True, text=True, timeout=10
        )
        if commit.returncode == 0:
            status = subprocess.run(
                ["git", "status", "--porcelain", "--untracked-files=no"],
                cwd=settings.BASE_DIR,
                capture_output=True,
                text=True,
                timeout=10,
            )
            return {"commit": commit.stdout.strip(), "uncommitted_changes": bool(status.stdout.strip())}
    except (OSError, subprocess.SubprocessError):
        pass  # no git here: the package's version says what it can
    try:
        return {"version": metadata.version("parity")}
    except metadata.PackageNotFoundError:
        return {"version": "unknown"}


@functools.cache
def installed_packages() -> dict[str, str]:
    """Every installed distribution's name and version, sorted by name. Read once a process: each
    distribution's metadata is parsed anew on every access (a name, then a version, once cost
    three parses of 561 files, 3 s of a bundle), and what is installed under a running process is
    what it started with."""
    packages = {}
    for dist in metadata.distributions():
        read = dist.metadata
        if read["Name"]:
            packages[read["Name"]] = read["Version"]
    return dict(sorted(packages.items(), key=lambda pair: pair[0].lower()))


def software_versions() -> dict[str, Any]:
    return {
        "parity": parity_version(),
        "engine_version": ENGINE_VERSION,
        "python": sys.version.split()[0],
        "implementation": platform.python_implementation(),
        "platform": platform.platform(),
        "packages": dict(installed_packages()),
    }
