"""What the database cannot do is a clear 4xx or 503, never a 500 (S7).

- A number too large for a 64-bit integer column (``?rfq=1e19`` parsed as digits, a huge id
  in a path or a form) makes SQLite raise ``OverflowError`` before the query runs; it is a
  400. PostgreSQL answers such a query with nothing found.
- SQLite (the development database of ``make run``) allows one writer at a time. It waits
  ``timeout`` seconds for the lock (config/settings.py), and when another writer still holds
  it the request is a 503 with ``Retry-After``, not a 500.

`IdFilter` bounds id filters of the list APIs to the 64-bit range, so such a filter is a 400
naming it.
"""

from __future__ import annotations

from typing import Any

import django_filters
from django import forms
from django.db import OperationalError
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.utils.deprecation import MiddlewareMixin

MAX_ID = 2**63 - 1


class IdFilter(django_filters.Filter):
    """A row id: a whole number from 1 to 2⁶³ − 1 (a 400 naming the filter otherwise)."""

    field_class = forms.IntegerField

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("min_value", 1)
        kwargs.setdefault("max_value", MAX_ID)
        super().__init__(*args, **kwargs)


def _answer(request: HttpRequest, status: int, code: str, detail: str) -> HttpResponse:
    if request.path.startswith("/api/"):
        response: HttpResponse = JsonResponse({"detail": detail, "code": code}, status=status)
    else:
        response = HttpResponse(detail, status=status, content_type="text/plain; charset=utf-8")
    return response


class DatabaseLimitsMiddleware(MiddlewareMixin):
    def process_exception(self, request: HttpRequest, exc: Exception) -> HttpResponse | None:
        if isinstance(exc, OverflowError):
            return _answer(
                request,
                400,
                "out_of_range",
                "A number in the request is too large (ids are "
                "whole numbers up to 9223372036854775807).",
            )
        if isinstance(exc, OperationalError) and "database is locked" in str(exc):
            response = _answer(
                request,
                503,
                "busy",
                "The database is busy with another change; try again in a few seconds.",
            )
            response["Retry-After"] = "5"
            return response
        return None
