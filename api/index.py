"""The API's front page at /api/: where the reference and the schema are, how to authenticate, and
every operation with its methods, read from the API's own URL patterns (so it cannot go stale)."""

from __future__ import annotations

import re
from typing import Any

from django.urls import URLPattern, reverse
from drf_spectacular.utils import extend_schema
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

#: `<int:study_id>` in a route, written `{study_id}` as the OpenAPI schema writes it
PARAMETER = re.compile(r"<(?:\w+:)?(\w+)>")
AUTHENTICATION = (
    "Authorization: Token <token> (made with `manage.py create_api_token USER` or in the admin), "
    "or the session of a researcher signed in to the site (writes then need the CSRF token)."
)


def endpoints(patterns: list[URLPattern], prefix: str, request: Request) -> list[dict[str, Any]]:
    """Each pattern's path, methods and, where it has no parameters, its absolute URL."""
    rows = []
    for pattern in patterns:
        # DRF's `cls`, which a deferred view (api/deferred.py) gives once imported
        view = getattr(pattern.callback, "cls", None)
        if view is None:
            continue
        path = prefix + PARAMETER.sub(r"{\1}", str(pattern.pattern))
        row: dict[str, Any] = {
            "name": pattern.name,
            "path": path,
            "methods": [
                method.upper() for method in ("get", "post", "put", "patch", "delete") if hasattr(view, method)
            ],
        }
        if "{" not in path:
            row["url"] = request.build_absolute_uri(path)
        rows.append(row)
    return rows


@extend_schema(exclude=True)
class ApiIndex(APIView):
    """The list of the API's operations, the link to its reference (/api/docs/) and its schema."""

    # which operations there are is no secret (the schema and the reference are public too); each
    # operation checks who may call it
    permission_classes = [AllowAny]
    #: the patterns listed (given by api/urls.py)
    operations: list[URLPattern] = []

    def get(self, request: Request) -> Response:
        return Response(
            {
                "title": "Parity API",
                "docs": request.build_absolute_uri(reverse("api-docs")),
                "schema": request.build_absolute_uri(reverse("api-schema")),
                "authentication": AUTHENTICATION,
                "endpoints": endpoints(self.operations, reverse("api:index"), request),
            }
        )
