"""A command starts without the heavy libraries it does not use: `manage.py check` (which sets Django
up and imports the URLconf, and so every view) loads none of scipy, matplotlib, pandas, scikit-learn,
torch, transformers or drf-spectacular; they are imported where they are used (a chart drawn, an
interval computed, a model run, an API request, the schema asked for). docs/performance.md,
"Start-up"."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
HEAVY = ("scipy", "matplotlib", "pandas", "sklearn", "torch", "transformers", "drf_spectacular")
#: what INSTALLED_APPS loads of drf-spectacular to register it (its templates, its deploy check): three
#: modules that import Django only
REGISTRATION = ("drf_spectacular", "drf_spectacular.apps", "drf_spectacular.checks")

CHECK_THEN_LIST = f"""
import json, sys
from django.core.management import execute_from_command_line
execute_from_command_line(["manage.py", "check"])
# a command that links to the API builds the resolver's lookup tables, which must not import the views
from django.urls import reverse
reverse("api:study", args=[1])
heavy = {HEAVY!r}
print(json.dumps(sorted(m for m in sys.modules if any(m == h or m.startswith(h + ".") for h in heavy))))
"""


def loaded_by_check() -> list[str]:
    environment = os.environ | {"DJANGO_SETTINGS_MODULE": "config.settings"}
    result = subprocess.run(
        [sys.executable, "-c", CHECK_THEN_LIST], cwd=REPO, env=environment, capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stderr
    loaded: list[str] = json.loads(result.stdout.strip().splitlines()[-1])
    return loaded


def test_manage_py_check_loads_none_of_the_heavy_libraries() -> None:
    assert [module for module in loaded_by_check() if module not in REGISTRATION] == []


def test_the_statistics_package_loads_a_name_when_it_is_first_used() -> None:
    import parity.stats

    assert parity.stats.t_mean_ci([1.0, 2.0, 3.0]) is not None
    assert sorted(parity.stats._SOURCES) == sorted(parity.stats.__all__)


SETUP_THEN_LIST = """
import json, sys
import django
django.setup()
from django.contrib import admin
admin.autodiscover()
print(json.dumps(sorted(m for m in ("numpy", "requests") if m in sys.modules)))
"""


def test_the_apps_their_models_and_admin_load_no_numpy() -> None:
    """Every command sets the apps up (models, their benchmark choices, the admin): the benchmarks'
    results, the power analysis and the recruitment rule load numpy only when they compute."""
    environment = os.environ | {"DJANGO_SETTINGS_MODULE": "config.settings"}
    result = subprocess.run(
        [sys.executable, "-c", SETUP_THEN_LIST], cwd=REPO, env=environment, capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout.strip().splitlines()[-1]) == []
