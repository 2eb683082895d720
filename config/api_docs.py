"""The API's schema and its reference page, served by drf-spectacular's views.

The views are imported when one of these pages is first asked for, not when the URLconf is:
drf-spectacular takes about half a second to load, and every management command would pay it
(`check` imports the URLconf; docs/performance.md, "Start-up")."""

from __future__ import annotations

from typing import TYPE_CHECKING

from studies.deferred import deferred, views_module

if TYPE_CHECKING:
    from drf_spectacular import views as spectacular
else:
    spectacular = views_module("drf_spectacular.views")

# CSRF-exempt, as DRF's own views are
api_schema = deferred(spectacular.SpectacularAPIView, csrf_exempt=True)
# the split view: Swagger UI's start script is a file of its own, not an inline script
api_docs = deferred(spectacular.SpectacularSwaggerSplitView, csrf_exempt=True, url_name="api-schema")
