"""A URL pattern's view named by its dotted path and imported on its first request.

The API's views load Django REST framework, which loads requests, markdown and the PostgreSQL
driver, and drf-spectacular: about a second that every management command would pay, since `check`
imports the URLconf (docs/performance.md, "Start-up"). A `DeferredView` stands in for
`SomeView.as_view()` until the view is needed."""

from __future__ import annotations

from collections.abc import Callable
from functools import cached_property
from typing import Any

from django.http import HttpRequest, HttpResponse
from django.utils.module_loading import import_string

View = Callable[..., HttpResponse]


class DeferredView:
    """`import_string(path).as_view(**initkwargs)`, built on the first request or the first look at
    what only the real view knows (DRF's `cls` and `initkwargs`, which the schema reads)."""

    #: read by Django's CSRF middleware before the view is built; DRF's views are exempt (their
    #: session authentication checks the token itself), and so are drf-spectacular's
    csrf_exempt = True

    def __init__(self, path: str, **initkwargs: Any) -> None:
        self.path = path
        self.initkwargs_given = initkwargs
        # what Django's resolver reads to name the view (`ResolverMatch._func_path`, `lookup_str`):
        # the same dotted path the real view gives, without importing it
        self.__module__, _, self.__name__ = path.rpartition(".")
        self.__qualname__ = self.__name__

    @cached_property
    def view(self) -> View:
        result: View = import_string(self.path).as_view(**self.initkwargs_given)
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
