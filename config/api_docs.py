"""The API's schema and its reference page, served by drf-spectacular's views.

The views are imported when one of these pages is first asked for, not when the URLconf is:
drf-spectacular takes about half a second to load, and every management command would pay it
(`check` imports the URLconf; docs/performance.md, "Start-up")."""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from typing import Any

from django.http import HttpRequest, HttpResponse
from django.utils.module_loading import import_string
from django.views.decorators.csrf import csrf_exempt

View = Callable[..., HttpResponse]


def deferred_view(path: str, **initkwargs: Any) -> View:
    """The class-based view at the dotted `path`, imported and set up on the first request."""

    @cache
    def view() -> View:
        result: View = import_string(path).as_view(**initkwargs)
        return result

    @csrf_exempt  # as DRF's own views are
    def deferred(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        return view()(request, *args, **kwargs)

    return deferred


api_schema = deferred_view("drf_spectacular.views.SpectacularAPIView")
# the split view: Swagger UI's start script is a file of its own, not an inline script
api_docs = deferred_view("drf_spectacular.views.SpectacularSwaggerSplitView", url_name="api-schema")
