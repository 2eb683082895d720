"""Every environment variable `scripts/run` and `scripts/serve` read is documented on the deploying
page (HOST and PORT of `scripts/run` were once documented nowhere)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
DEPLOYING = (REPO / "docs" / "deploying.md").read_text()


def read_variables(script: str) -> set[str]:
    """The variables a script reads with a default (`${NAME:-default}`)."""
    return set(re.findall(r"\$\{([A-Z_]+):-", (REPO / "scripts" / script).read_text()))


@pytest.mark.parametrize("script", ["run", "serve"])
def test_every_variable_the_script_reads_is_on_the_deploying_page(script):
    variables = read_variables(script)
    assert variables, f"scripts/{script} reads no variable"
    missing = sorted(name for name in variables if f"`{name}`" not in DEPLOYING)
    assert missing == [], f"scripts/{script} reads {missing}, which docs/deploying.md does not document"


def test_scripts_run_reads_host_and_port():
    assert {"HOST", "PORT"} <= read_variables("run")
