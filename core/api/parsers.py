"""JSON request bodies read strictly: a clear 400, never a 500 and never a value that breaks a
field further in.

Python's `json` reads `1e400` as infinity (a serializer then turns it into the text "inf", or
`int()` overflows in a primary-key lookup), turns 5,000-digit integers into a ValueError with
an interpreter hint, and stops nesting only at its recursion limit, deep enough for the
response renderer to crash on the way back out. So a body is refused when it nests more than
MAX_DEPTH levels, holds a number that overflows a float or an integer of more than
MAX_INT_DIGITS digits, or uses NaN/Infinity. No real body of this API nests past 5 levels;
an integer too large for its field (10**30 tokens) still reaches the field, whose message
names it.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable
from typing import Any, Final

from django.conf import settings
from rest_framework.exceptions import ParseError
from rest_framework.parsers import FormParser, JSONParser, MultiPartParser

from core.control_chars import control_character_fields

MAX_DEPTH: Final = 64
MAX_INT_DIGITS: Final = 1000
PREFIX: Final = "JSON parse error - "


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ParseError(f"{PREFIX}the number {text[:24]} is too large for a number field.")
    return value


def _bounded_int(text: str) -> int:
    digits = len(text.lstrip("-"))
    if digits > MAX_INT_DIGITS:
        raise ParseError(
            f"{PREFIX}a whole number has {digits:,} digits; at most {MAX_INT_DIGITS} are accepted."
        )
    return int(text)


def _no_constant(name: str) -> Any:
    raise ParseError(f"{PREFIX}{name} is not a number JSON allows.")


def _deeper_than(value: Any, limit: int) -> bool:
    """Whether containers nest more than `limit` levels (iterative: no recursion to exhaust)."""
    stack = [(value, 1)]
    while stack:
        node, depth = stack.pop()
        if not isinstance(node, dict | list):
            continue
        children: Iterable[Any] = node.values() if isinstance(node, dict) else node
        if depth > limit:
            return True
        stack.extend((child, depth + 1) for child in children)
    return False


def load_json(text: str | bytes) -> Any:
    """The decoded body, or ParseError with a message that says what is wrong with it."""
    try:
        value = json.loads(
            text,
            parse_float=_finite_float,
            parse_int=_bounded_int,
            parse_constant=_no_constant,
        )
    except RecursionError as exc:
        raise ParseError(f"{PREFIX}the document is nested too deeply.") from exc
    except ValueError as exc:  # JSONDecodeError and UnicodeDecodeError included
        raise ParseError(f"{PREFIX}{exc}") from exc
    if _deeper_than(value, MAX_DEPTH):
        raise ParseError(
            f"{PREFIX}the document is nested too deeply (more than {MAX_DEPTH} levels)."
        )
    return value


#: Where `core.api.middleware.JsonBodyMiddleware` leaves a body it already read.
PARSED_BODY: Final = "_json_body_read"


class SafeJSONParser(JSONParser):
    def parse(self, stream: Any, media_type: str | None = None, parser_context: Any = None) -> Any:
        encoding = (parser_context or {}).get("encoding", settings.DEFAULT_CHARSET)
        django_request = getattr((parser_context or {}).get("request"), "_request", None)
        if hasattr(django_request, PARSED_BODY) and encoding.lower() in {"utf-8", "utf8"}:
            return getattr(django_request, PARSED_BODY)
        raw = stream.read()
        try:
            text = raw.decode(encoding)
        except (UnicodeDecodeError, LookupError) as exc:
            raise ParseError(f"{PREFIX}the body is not {encoding} text.") from exc
        return load_json(text)


def _refuse_control_characters(data: Any) -> None:
    fields = control_character_fields({k: data.getlist(k) for k in data})
    if fields:
        first = next(iter(fields))
        raise ParseError(f"{first.split('[')[0]}: {fields[first][0]}", code="control_character")


class SafeFormParser(FormParser):
    """A form body whose text fields hold no control character (R1, core.control_chars)."""

    def parse(self, stream: Any, media_type: str | None = None, parser_context: Any = None) -> Any:
        data = super().parse(stream, media_type, parser_context)
        _refuse_control_characters(data)
        return data


class SafeMultiPartParser(MultiPartParser):
    """A multipart body whose text fields hold no control character (files are not read)."""

    def parse(self, stream: Any, media_type: str | None = None, parser_context: Any = None) -> Any:
        parsed = super().parse(stream, media_type, parser_context)
        _refuse_control_characters(parsed.data)
        return parsed
