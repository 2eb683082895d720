"""The site's error pages."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.views import defaults


def page_not_found(request: HttpRequest, exception: Exception) -> HttpResponse:
    """The site's 404 handler: JSON, as the schema documents it, for a path under /api/ that matches no
    operation (a study id that is not a number, say); the site's page elsewhere."""
    if request.path.startswith("/api/"):
        return JsonResponse({"detail": "Not found."}, status=404)
    return defaults.page_not_found(request, exception)
