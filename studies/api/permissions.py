from __future__ import annotations

from rest_framework.permissions import BasePermission
from rest_framework.request import Request
from rest_framework.views import APIView


class IsResearcher(BasePermission):
    """Researchers are staff accounts: they read everything and make the few writes there are.
    Anonymous callers and participants (who have no account) get 401, other accounts 403."""

    message = "The API is for researchers (staff accounts) only."

    def has_permission(self, request: Request, view: APIView) -> bool:
        user = request.user
        return bool(user and user.is_authenticated and user.is_active and user.is_staff)
