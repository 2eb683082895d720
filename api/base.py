"""What every operation of the API shares, reads and writes alike: researchers only (token or
session), on their own studies (`studies.access`), pseudonyms only, pages of rows."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import OpenApiParameter, inline_serializer
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from api.permissions import IsResearcher
from api.schema import ResearcherApiSchema
from api.throttles import CappedPagination, ThrottledBeforeRefused
from studies.access import VIEW_STUDY, get_study_for_researcher
from studies.models import Study
from studies.participants.identity import parameter_touches_identity


def paginated(name: str, serializer: type[serializers.Serializer]) -> serializers.Serializer:
    """The schema of a LimitOffsetPagination page of `serializer` rows."""
    return inline_serializer(
        name=f"Paginated{name}",
        fields={
            "count": serializers.IntegerField(),
            "next": serializers.URLField(allow_null=True),
            "previous": serializers.URLField(allow_null=True),
            "results": serializer(many=True),
        },
    )


#: LimitOffsetPagination's query parameters, for the schema of the list endpoints
PAGE = [
    OpenApiParameter(
        "limit", int, description="rows per page (default 100; more than API_MAX_PAGE_SIZE, default 1000, is cut to it)"
    ),
    OpenApiParameter("offset", int, description="rows to skip"),
]


def page_of(request: Request, view: APIView, rows: Any, serializer: type[serializers.Serializer]) -> Response:
    paginator = CappedPagination()
    page: list[Any] | None = paginator.paginate_queryset(rows, request, view=view)
    return paginator.get_paginated_response(serializer(page, many=True).data)


class ResearcherApi(ThrottledBeforeRefused, APIView):
    permission_classes = [IsResearcher]
    schema = ResearcherApiSchema()

    def initial(self, request: Request, *args: Any, **kwargs: Any) -> None:
        super().initial(request, *args, **kwargs)
        refused = [
            name
            for name in request.query_params
            if parameter_touches_identity(name, request.query_params.getlist(name))
        ]
        if refused:
            raise serializers.ValidationError(
                {
                    name: "The API is pseudonymous: Prolific participant, study and "
                    "session ids cannot be filtered, searched or ordered on."
                    for name in refused
                }
            )

    #: the permission this operation needs, besides the study being the caller's
    permission = VIEW_STUDY

    def study(self, request: Request, study_id: int) -> Study:
        return get_study_for_researcher(request.user, study_id, self.permission)

    #: what a writing operation takes (declared by each of them)
    InputSerializer: type[serializers.Serializer]

    def given(self, data: Any, **context: Any) -> dict[str, Any]:
        """`data` checked by the operation's InputSerializer, which sees `context` (a 400 with the
        errors otherwise)."""
        serializer = self.InputSerializer(data=data, context=context)
        serializer.is_valid(raise_exception=True)
        return dict(serializer.validated_data)
