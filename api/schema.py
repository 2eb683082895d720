"""The OpenAPI description of the researchers' API, errors included: every operation documents the
401/403/429 any caller may get, the 404 of an id that does not exist and, where it reads input, the
400 of input it refuses."""

from __future__ import annotations

from typing import Any, Literal

from drf_spectacular.openapi import AutoSchema
from drf_spectacular.plumbing import is_serializer
from drf_spectacular.utils import OpenApiResponse

#: DRF's shape for every error but a validation error
DETAIL = {"type": "object", "properties": {"detail": {"type": "string"}}, "required": ["detail"]}
#: a validation error: messages per field (or a single `detail` when the body cannot be parsed); a
#: field holding a mapping (a run's `setting`) has its messages per key, one level down
INVALID = {
    "type": "object",
    "additionalProperties": {
        "anyOf": [
            {"type": "array", "items": {"type": "string"}},
            {"type": "string"},
            {"type": "object", "additionalProperties": {"type": "array", "items": {"type": "string"}}},
        ]
    },
}


class ResearcherApiSchema(AutoSchema):
    def _get_response_bodies(self, direction: Literal["request", "response"] = "response") -> dict[str, Any]:
        responses = super()._get_response_bodies(direction)
        for code, shape, description in self._errors():
            if code not in responses:
                responses[code] = self._get_response_for_code(
                    OpenApiResponse(shape, description), code, direction=direction
                )
        return responses

    def _errors(self) -> list[tuple[str, dict[str, Any], str]]:
        errors = [
            ("401", DETAIL, "No credentials, or a wrong or expired token."),
            ("403", DETAIL, "The account is not a staff account."),
            (
                "429",
                DETAIL,
                "Too many requests, or too many failed logins from this address: try again after Retry-After seconds.",
            ),
        ]
        if "{" in self.path:
            errors.append(("404", DETAIL, "No study (or participant, or export format) has this id."))
        if self._reads_input():
            errors.append(("400", INVALID, "The parameters or the body are not valid; the messages say why."))
        return sorted(errors)

    def _reads_input(self) -> bool:
        if self.method in {"POST", "PUT", "PATCH"}:
            return self.get_request_serializer() is not None
        return any(is_serializer(parameter) for parameter in self.get_override_parameters())
