"""No control character in any text a person types (security round 4, R1).

A C0 control in front of `=` slipped past the spreadsheet quoting, and none of them has a use
in a title, a note or a name. One rule for every input, present and future: every form field
(`request.POST`) and every string in a JSON body, at any depth, is refused with a 400 naming
the field when it holds a control character other than tab, line feed and carriage return
(C0, DEL or C1). File contents are not form fields: their readers bound them, and every export
quotes its text (`core.spreadsheet`).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from django.http import HttpRequest, HttpResponse, HttpResponseBadRequest, JsonResponse
from django.utils.deprecation import MiddlewareMixin

from core.spreadsheet import CONTROL_CHARACTERS

MESSAGE = (
    "Holds a control character (U+{code:04X}), which no text here may contain; remove it "
    "(tab and line breaks are fine)."
)
WRITE_METHODS = frozenset({"POST", "PUT", "PATCH"})


def control_character_error(text: str) -> str | None:
    """The message for a text holding a control character; None when it holds none."""
    found = CONTROL_CHARACTERS.search(text)
    return MESSAGE.format(code=ord(found.group())) if found else None


def _strings(value: Any, path: str) -> Iterator[tuple[str, str]]:
    if isinstance(value, str):
        yield path, value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from _strings(str(key), f"{path}.{key}" if path else str(key))
            yield from _strings(item, f"{path}.{key}" if path else str(key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _strings(item, f"{path}[{index}]")


def control_character_fields(value: Any) -> dict[str, list[str]]:
    """Field path → [message] for every string in `value` (a JSON value or a mapping of form
    fields to lists of values) that holds a control character."""
    errors: dict[str, list[str]] = {}
    for path, text in _strings(value, ""):
        message = control_character_error(text)
        if message and path not in errors:
            errors[path or "body"] = [message]
    return errors


def refusal(fields: dict[str, list[str]]) -> JsonResponse:
    first = next(iter(fields))
    return JsonResponse(
        {"detail": f"{first}: {fields[first][0]}", "code": "control_character", "fields": fields},
        status=400,
    )


class ControlCharacterRefused(Exception):
    def __init__(self, fields: dict[str, list[str]]) -> None:
        super().__init__(fields)
        self.fields = fields


def _form_refusal(fields: dict[str, list[str]]) -> HttpResponse:
    path = next(iter(fields))
    return HttpResponseBadRequest(
        f"The field “{path.split('[')[0]}”: {fields[path][0]} Nothing was saved; go back, "
        "correct it and send the form again.",
        content_type="text/plain; charset=utf-8",
    )


def _check_form(request: HttpRequest) -> None:
    fields = control_character_fields({k: request.POST.getlist(k) for k in request.POST})
    if fields:
        raise ControlCharacterRefused(fields)


class ControlCharacterMiddleware(MiddlewareMixin):
    """Refuses a form POST whose fields hold a control character, after the CSRF and login
    checks (JSON bodies: core.api.middleware, which reads them once for the API's parser).
    A multipart form is checked when the view first reads it: upload views install their size
    limits before that, and reading the body here would come too early for them."""

    def process_view(
        self, request: HttpRequest, view_func: Any, view_args: Any, view_kwargs: Any
    ) -> HttpResponse | None:
        if request.method not in WRITE_METHODS:
            return None
        already_read = hasattr(request, "_post")  # the CSRF check reads most forms first
        if request.content_type == "application/x-www-form-urlencoded" or (
            request.content_type == "multipart/form-data" and already_read
        ):
            try:
                _check_form(request)
            except ControlCharacterRefused as refused:
                return _form_refusal(refused.fields)
        elif request.content_type == "multipart/form-data":
            load = request._load_post_and_files

            def load_then_check() -> None:
                load()
                _check_form(request)

            request._load_post_and_files = load_then_check  # type: ignore[method-assign]
        return None

    def process_exception(self, request: HttpRequest, exc: Exception) -> HttpResponse | None:
        if isinstance(exc, ControlCharacterRefused):
            return _form_refusal(exc.fields)
        return None
