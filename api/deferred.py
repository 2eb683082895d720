"""The API's views, each imported on its first request (`studies.deferred`).

They load Django REST framework, which loads requests, markdown and the PostgreSQL driver, and
drf-spectacular: about a second that every management command would pay, since `check` imports the
URLconf (docs/performance.md, "Start-up")."""

from __future__ import annotations

from typing import Any

from studies.deferred import DeferredView as _Deferred


class DeferredView(_Deferred):
    """`import_string(path).as_view(**initkwargs)` on the first request; CSRF-exempt, as DRF's views
    are (their session authentication checks the token itself)."""

    def __init__(self, path: str, **initkwargs: Any) -> None:
        super().__init__(path, csrf_exempt=True, **initkwargs)
