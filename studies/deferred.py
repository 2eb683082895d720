"""A URL pattern's view named, and imported on its first request.

`manage.py check`, which every command runs, imports the URLconf: a URLconf that imported its views
would load, at every command, what the pages compute with (the results' statistics and numpy,
Django REST framework and the libraries it pulls in, drf-spectacular). A `DeferredView` stands in
for the view until a request (or a look at an attribute only the view has) asks for it
(docs/performance.md, "Start-up").

A URLconf names its views through the module a type checker and an editor see, which is not imported
when the URLconf loads:

    if TYPE_CHECKING:
        from studies.workflow import views
    else:
        views = views_module("studies.workflow.views")

    path("new/", deferred(views.study_new), name="new")

mypy checks that `views.study_new` exists, an editor goes from it to the view, and at run time
`views.study_new` is only the view's name (`ViewName`) until its first request."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from django.http import HttpRequest, HttpResponse
from django.utils.module_loading import import_string

View = Callable[..., HttpResponse]


class DeferredView:
    """The view at the dotted `path`: a function view as it is, a class-based one as
    `as_view(**initkwargs)`; imported on the first request or the first look at what only the real
    view knows (DRF's `cls` and `initkwargs`, which the schema reads)."""

    def __init__(self, path: str, *, csrf_exempt: bool = False, **initkwargs: Any) -> None:
        self.path = path
        self.initkwargs_given = initkwargs
        # read by Django's CSRF middleware on the resolved view before it is called, so it cannot
        # wait for the import: the URLconf says it (tests/test_startup.py checks it against the view)
        self.csrf_exempt = csrf_exempt
        # what Django's resolver reads to name the view (`ResolverMatch._func_path`, `lookup_str`):
        # the same dotted path the real view gives, without importing it
        self.__module__, _, self.__name__ = path.rpartition(".")
        self.__qualname__ = self.__name__

    @cached_property
    def view(self) -> View:
        found: Any = import_string(self.path)
        # a class-based view (Django's or DRF's) is made into a view by its `as_view`
        result: View = found.as_view(**self.initkwargs_given) if hasattr(found, "as_view") else found
        return result

    def __call__(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        return self.view(request, *args, **kwargs)

    def __getattr__(self, name: str) -> Any:
        # only names the instance lacks reach here; `view_class` is left out so that Django's
        # resolver, which asks for it when it first builds its lookup tables (any `reverse()`), does
        # not import every view: asking for `cls` gives the class
        if name.startswith("__") or name in {"view", "view_class"}:
            raise AttributeError(name)
        return getattr(self.view, name)


@dataclass(frozen=True)
class ViewName:
    """A view by its dotted path, the module not imported (`views_module`)."""

    path: str


class ViewsModule:
    """A module of views, not imported: each of its attributes is a view's name (`ViewName`)."""

    def __init__(self, module: str) -> None:
        self.module = module

    def __getattr__(self, name: str) -> ViewName:
        if name.startswith("__"):
            raise AttributeError(name)
        return ViewName(f"{self.module}.{name}")


def views_module(module: str) -> Any:
    """The views of `module`, named but not imported: bound in the `else` of an `if TYPE_CHECKING:`
    that imports the module under the same name (the module's docstring shows how)."""
    return ViewsModule(module)


def deferred(view: Callable[..., Any] | ViewName, *, csrf_exempt: bool = False, **initkwargs: Any) -> DeferredView:
    """`view` (a function view, or a class-based one made with `as_view(**initkwargs)`), imported on
    its first request (`DeferredView`)."""
    path = view.path if isinstance(view, ViewName) else f"{view.__module__}.{view.__qualname__}"
    return DeferredView(path, csrf_exempt=csrf_exempt, **initkwargs)


def views_load(patterns: Iterable[Any] | None = None) -> int:
    """Import every deferred view of the URLconf (and what it imports: the results' statistics, numpy,
    scipy); returns how many. The server calls it once as it starts (`config.wsgi`): in gunicorn's
    master with --preload, so that no worker's first request waits seconds for the imports."""
    from django.urls import URLResolver, get_resolver

    loaded = 0
    for entry in get_resolver().url_patterns if patterns is None else patterns:
        if isinstance(entry, URLResolver):
            loaded += views_load(entry.url_patterns)
        elif isinstance(entry.callback, DeferredView):
            entry.callback.view  # noqa: B018 - the import is the point
            loaded += 1
    return loaded


#: what the pages compute with that their modules import inside the functions that use it, so that a
#: command's start (`manage.py check`) does not load it: importing scipy's optimisers and special
#: functions costs about half a second, which the first study list, power analysis or results page of
#: each process would wait for (scipy.stats, a second more, is used by none: `parity.stats.distributions`)
LIBRARIES = ("scipy.optimize", "scipy.sparse.csgraph", "scipy.special")


def libraries_load() -> None:
    """Import `LIBRARIES`: the server calls it once as it starts, with `views_load` (`config.wsgi`)."""
    for name in LIBRARIES:
        importlib.import_module(name)
