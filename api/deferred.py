"""The API's views, each imported on its first request (`studies.deferred`).

They load Django REST framework, which loads requests, markdown and the PostgreSQL driver, and
drf-spectacular: about a second that every management command would pay, since `check` imports the
URLconf (docs/performance.md, "Start-up")."""

from __future__ import annotations

from typing import Any

from studies.deferred import DeferredView, ViewName, deferred


def api_view(view: type | ViewName, **initkwargs: Any) -> DeferredView:
    """`view.as_view(**initkwargs)` on the first request; CSRF-exempt, as DRF's views are (their
    session authentication checks the token itself)."""
    return deferred(view, csrf_exempt=True, **initkwargs)
