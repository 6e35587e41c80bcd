"""Every JSON body sent to an API view is read before the view runs.

DRF parses a body only when a view asks for `request.data`, so a view that needs no input
(recompute, retry) would accept any body at all, 10,000 levels of brackets included, and
act on it. Reading it here with the API's own rules (`core.api.parsers.load_json`) makes a
malformed body a 400 on every write endpoint, present and future, in the API's error shape.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.utils.deprecation import MiddlewareMixin
from rest_framework.exceptions import ParseError
from rest_framework.views import APIView

from core.api.parsers import PARSED_BODY, load_json
from core.control_chars import control_character_fields, refusal

WRITE_METHODS = frozenset({"POST", "PUT", "PATCH"})


def _handles(view_func: Callable[..., Any], method: str) -> bool:
    """Whether the view is a DRF view with a handler for this method (else DRF says 405)."""
    cls = getattr(view_func, "cls", None)
    if cls is None or not issubclass(cls, APIView):
        return False
    actions = getattr(view_func, "actions", None)  # viewsets route methods to actions
    return method.lower() in actions if actions else hasattr(cls, method.lower())


class JsonBodyMiddleware(MiddlewareMixin):
    def process_view(
        self,
        request: HttpRequest,
        view_func: Callable[..., Any],
        view_args: Any,
        view_kwargs: Any,
    ) -> HttpResponse | None:
        if request.method not in WRITE_METHODS or request.content_type != "application/json":
            return None
        if not _handles(view_func, request.method):
            return None
        body = request.body
        if not body.strip():
            return None
        try:
            value = load_json(body)
        except ParseError as exc:
            return JsonResponse(
                {"detail": str(exc.detail), "code": "parse_error", "fields": {}}, status=400
            )
        if fields := control_character_fields(value):
            return refusal(fields)
        if json.detect_encoding(body) == "utf-8":
            # Kept for the view's parser, which would read the same UTF-8 text the same way.
            setattr(request, PARSED_BODY, value)
        return None
