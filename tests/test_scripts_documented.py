"""Every environment variable `scripts/run` and `scripts/serve` read is documented on the deploying
page (HOST and PORT of `scripts/run` were once documented nowhere)."""

from __future__ import annotations

import re

import pytest

from tests.paths import REPO

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


def test_host_mode_on_the_deploying_page_names_the_ports_compose_host_yaml_uses():
    """The host-mode table gives the ports and addresses that deploy/compose.host.yaml's own comment
    and its Redis command use, so a newcomer copying the table gets a stack that connects."""
    host_yaml = (REPO / "deploy" / "compose.host.yaml").read_text()
    redis_port = re.search(r'"--port", "(\d+)"', host_yaml).group(1)
    commented = dict(re.findall(r"^#\s+([A-Z_]+)=(\S+)$", host_yaml, flags=re.M))
    section = DEPLOYING.split("### Host mode, whole", 1)[1].split("\n### ", 1)[0]
    rows = dict(re.findall(r"^\| `([A-Z_]+)` \| `([^`]+)` \|", section, flags=re.M))
    assert set(rows) == set(commented) == {"PGPORT", "DATABASE_URL", "REDIS_URL", "BIND"}
    assert rows["REDIS_URL"] == commented["REDIS_URL"] == f"redis://127.0.0.1:{redis_port}/0"
    assert rows["PGPORT"] == commented["PGPORT"]
    assert f":{rows['PGPORT']}/" in rows["DATABASE_URL"]
    assert rows["BIND"] == commented["BIND"]
