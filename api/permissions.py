from __future__ import annotations

from rest_framework.permissions import BasePermission
from rest_framework.request import Request
from rest_framework.views import APIView

from studies.access import VIEW_STUDY, has_permission


class IsResearcher(BasePermission):
    """Researchers are accounts holding `studies.view_study`; what else they may read or do, and on
    which studies, is decided per operation by `studies.access`. Anonymous callers and participants
    (who have no account) get 401, other accounts 403."""

    message = "The API is for researchers (accounts with the studies.view_study permission) only."

    def has_permission(self, request: Request, view: APIView) -> bool:
        return has_permission(request.user, VIEW_STUDY)
