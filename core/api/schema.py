"""The error contract of the API in the OpenAPI schema.

Every error the API returns has one shape, `{"detail", "code", "fields"}` (rendered by
`core.api.errors.exception_handler`). `ErrorSerializer` documents it;
and `AutoSchema` (set as `REST_FRAMEWORK["DEFAULT_SCHEMA_CLASS"]`) adds the error statuses that
every operation can answer with, so clients and schema-driven fuzzers (schemathesis) see
400/401/403/404/409/413/415 documented instead of surprising.
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.openapi import AutoSchema as SpectacularAutoSchema
from drf_spectacular.utils import OpenApiResponse
from rest_framework import serializers
from rest_framework.parsers import FileUploadParser, MultiPartParser
from rest_framework.permissions import AllowAny

WRITE_METHODS = frozenset({"POST", "PUT", "PATCH"})

ERROR_DESCRIPTIONS: dict[int, str] = {
    400: "The request is malformed or breaks a rule; `fields` names each problem. "
    "Nothing was saved.",
    401: "No credentials, or unknown / expired ones.",
    403: "Authenticated, but this role may not do this (or the CSRF token is missing).",
    404: "Not found, or not visible to you: both give the same answer, on purpose.",
    409: "The object changed state first (e.g. it was already revised, approved or is still "
    "being computed); reload and try again.",
    413: "The upload is larger than the limit; nothing was stored.",
    415: "Unsupported media type: send the content type this operation documents.",
    429: "Too many requests; wait and try again.",
    503: "A background service is unavailable; the request was saved and will be retried.",
}


class ErrorSerializer(serializers.Serializer[dict[str, Any]]):
    """The body of every API error."""

    detail = serializers.CharField(help_text="A human-readable message.")
    code = serializers.CharField(help_text='A stable machine code, e.g. "invalid", "not_found".')
    # SerializerMetaclass pops declared fields, so this does not shadow `Serializer.fields`.
    fields = serializers.DictField(  # type: ignore[assignment]
        child=serializers.ListField(child=serializers.CharField()),
        help_text="Field name → messages; empty when the error is not about a field.",
    )


class AutoSchema(SpectacularAutoSchema):
    """drf-spectacular's AutoSchema, plus the error responses each operation can give."""

    def _error_codes(self) -> list[int]:
        view, method = self.view, self.method.upper()
        codes = [400, 404]
        if not all(isinstance(p, AllowAny) for p in view.get_permissions()):
            codes += [401, 403]
        if method in WRITE_METHODS:
            codes += [409, 415]
            parsers = view.get_parsers() if hasattr(view, "get_parsers") else []
            if any(isinstance(p, MultiPartParser | FileUploadParser) for p in parsers):
                codes.append(413)
        if view.get_throttles() if hasattr(view, "get_throttles") else False:
            codes.append(429)
        return sorted(codes)

    def _get_response_bodies(self, direction: Any = "response") -> dict[str, Any]:
        responses = super()._get_response_bodies(direction=direction)
        if direction != "response":
            return responses
        for code in self._error_codes():
            if str(code) not in responses:
                responses[str(code)] = self._get_response_for_code(  # type: ignore[no-untyped-call]  # drf-spectacular leaves this hook unannotated
                    OpenApiResponse(ErrorSerializer, ERROR_DESCRIPTIONS[code]),
                    str(code),
                    direction=direction,
                )
        return responses
