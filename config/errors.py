"""The site's error pages."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.views import defaults

from participation.i18n import browser_language


def page_not_found(request: HttpRequest, exception: Exception) -> HttpResponse:
    """The site's 404 handler: JSON, as the schema documents it, for a path under /api/ that matches no
    operation (a study id that is not a number, say); the site's page elsewhere, in the browser's
    language (a link to no study knows no study's language)."""
    if request.path.startswith("/api/"):
        return JsonResponse({"detail": "Not found."}, status=404)
    with browser_language(request):
        return defaults.page_not_found(request, exception)
