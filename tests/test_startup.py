"""A command starts without the heavy libraries it does not use: `manage.py check` (which sets Django
up, imports the URLconf and builds the template engine) loads none of scipy, matplotlib, pandas,
scikit-learn, torch, transformers or drf-spectacular, nor any view module (the URLconfs name them,
`studies.deferred`); they are imported where they are used (a chart drawn, an interval computed, a
model run, a page or an API request, the schema asked for). docs/performance.md, "Start-up"."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

from django.urls import URLPattern, URLResolver, get_resolver, resolve, reverse
from django.urls.resolvers import RoutePattern

from parity.benchmarks import choices
from tests.paths import REPO

HEAVY = ("scipy", "matplotlib", "pandas", "sklearn", "torch", "transformers", "drf_spectacular")
#: what INSTALLED_APPS loads of drf-spectacular to register it (its templates, its deploy check): three
#: modules that import Django only
REGISTRATION = ("drf_spectacular", "drf_spectacular.apps", "drf_spectacular.checks")
#: the view modules, which the URLconfs name without importing them (each imported on its first
#: request); CSRF_FAILURE_VIEW, which Django's CSRF check imports, is alone in `participation.csrf`
VIEWS = (
    "participation.views",
    "results.views",
    "modelruns.views",
    "review.views",
    "replication.views",
    "studies.workflow.views",
    "participation.preview_views",
    "prolific.views",
    "prolific.hooks",
    "api.reads",
    "api.writes",
    "api.monitor",
    "api.index",
)

#: the benchmarks' own packages, imported when the registry is first read (a command that uses one); not
#: instruction induction's, whose model side the admin's run services import (modelruns'
#: instruction scoring, one of the exceptions tests/test_layers.py lists)
BENCHMARKS = tuple(f"parity.benchmarks.{name}" for name, _title in choices() if name != "instruction_induction")

CHECK_THEN_LIST = f"""
import json, sys
from django.core.management import execute_from_command_line
execute_from_command_line(["manage.py", "check"])
# a command that links to the API builds the resolver's lookup tables, which must not import the views
from django.urls import reverse
reverse("api:study", args=[1])
heavy = {HEAVY + VIEWS + BENCHMARKS!r}
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


def test_the_engine_package_loads_a_name_when_it_is_first_used() -> None:
    import parity.engine

    assert parity.engine.ChoiceRequest is not None and parity.engine.metrics is not None
    assert sorted([*parity.engine._SOURCES, "metrics"]) == sorted(parity.engine.__all__)


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


#: a value for each path converter the URLconf uses, to reverse a pattern's name
CONVERTER_VALUES = {
    "IntConverter": 1,
    "StringConverter": "x",
    "SlugConverter": "x",
    "PathConverter": "x",
    "UUIDConverter": "12345678-1234-5678-1234-567812345678",
}


def _named_patterns(patterns: list[Any], namespace: str = "") -> Iterator[tuple[str, URLPattern]]:
    for entry in patterns:
        if isinstance(entry, URLResolver):
            inner = f"{namespace}{entry.namespace}:" if entry.namespace else namespace
            yield from _named_patterns(entry.url_patterns, inner)
        elif entry.name and isinstance(entry.pattern, RoutePattern):
            # (the admin's regular expressions, which take the apps' labels, are the admin's own)
            yield f"{namespace}{entry.name}", entry


def test_every_url_name_reverses_and_resolves_to_a_view_that_loads() -> None:
    """The URLconf names its views without importing them (`studies.deferred`): each name still
    reverses, its path resolves to the same pattern, and the view it names imports and is callable,
    with the CSRF exemption the URLconf declares for it (the middleware reads it before the import)."""
    from studies.deferred import DeferredView

    named = list(_named_patterns(get_resolver().url_patterns))
    assert len(named) > 40
    for name, pattern in named:
        kwargs = {
            key: CONVERTER_VALUES[type(converter).__name__] for key, converter in pattern.pattern.converters.items()
        }
        match = resolve(reverse(name, kwargs=kwargs))
        assert match.view_name == name
        if isinstance(match.func, DeferredView):
            loaded = match.func.view
            assert callable(loaded), name
            assert match.func.csrf_exempt == getattr(loaded, "csrf_exempt", False), name
            # the name Django gives the view (the resolver's lookup, error pages) is the real one's
            named = getattr(loaded, "view_class", loaded)
            assert f"{named.__module__}.{named.__qualname__}" == match.func.path, name


#: what the server loads as it starts besides the views: what the pages compute with
SERVED = (*VIEWS, "results.computing.assemble", "scipy.optimize", "scipy.special")
SERVE = f"""
import gc, json, sys
import config.wsgi
print(gc.get_freeze_count())
print(json.dumps(sorted(m for m in {SERVED!r} if m in sys.modules)))
"""


def test_the_server_imports_every_view_as_it_starts_not_on_its_first_request() -> None:
    """The WSGI application (gunicorn's master, with --preload) loads every view and what the pages
    compute with, so that no worker's first request waits for the imports (seconds with scipy)."""
    environment = os.environ | {"DJANGO_SETTINGS_MODULE": "config.settings"}
    result = subprocess.run(
        [sys.executable, "-c", SERVE], cwd=REPO, env=environment, capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stderr
    frozen, loaded = result.stdout.strip().splitlines()[-2:]
    assert json.loads(loaded) == sorted(SERVED)
    # what start-up built is kept out of the garbage collector's full collections
    assert int(frozen) > 100_000
