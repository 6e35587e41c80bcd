"""DRF exception handler: every error is JSON {"detail", "code", "fields"}."""

from __future__ import annotations

from typing import Any

from django.core.exceptions import ValidationError as DjangoValidationError
from django.http import Http404
from rest_framework import exceptions, status
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler

from core.errors import DomainError


def _flatten(detail: Any) -> dict[str, list[str]]:
    if isinstance(detail, dict):
        out: dict[str, list[str]] = {}
        for key, value in detail.items():
            if isinstance(value, dict):
                for sub, messages in _flatten(value).items():
                    out[f"{key}.{sub}"] = messages
            elif isinstance(value, list):
                out[str(key)] = [str(v) for v in value]
            else:
                out[str(key)] = [str(value)]
        return out
    if isinstance(detail, list):
        return {"non_field_errors": [str(v) for v in detail]}
    return {}


def exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    if isinstance(exc, DomainError):
        return Response(
            {"detail": exc.message, "code": exc.code, "fields": exc.fields},
            status=exc.status_code,
        )
    if isinstance(exc, DjangoValidationError):
        exc = exceptions.ValidationError(
            exc.message_dict if hasattr(exc, "error_dict") else exc.messages
        )
    if isinstance(exc, Http404):
        exc = exceptions.NotFound()
    response = drf_exception_handler(exc, context)
    if response is None:
        return None
    if isinstance(exc, exceptions.ValidationError):
        fields = _flatten(exc.detail)
        first = next(iter(fields.items()), ("", ["Invalid input."]))
        message = (
            first[1][0] if first[0] in ("", "non_field_errors") else f"{first[0]}: {first[1][0]}"
        )
        response.data = {"detail": message, "code": "invalid", "fields": fields}
        response.status_code = status.HTTP_400_BAD_REQUEST
    elif isinstance(exc, exceptions.APIException):
        codes = exc.get_codes()
        response.data = {
            "detail": str(exc.detail) if not isinstance(exc.detail, dict) else "Error.",
            "code": codes if isinstance(codes, str) else "error",
            "fields": {},
        }
    if isinstance(exc, exceptions.AuthenticationFailed):
        # Credentials were sent and refused (unknown token, deactivated user): 401 with a
        # challenge. No credentials at all stays 403, as DRF answers with session auth first.
        response.status_code = status.HTTP_401_UNAUTHORIZED
        response["WWW-Authenticate"] = 'Token realm="api"'
    return response
