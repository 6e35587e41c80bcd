"""A JSON parser that turns absurd input into a clear 400 instead of a 500: nesting too deep
for the interpreter (RecursionError), and numbers too large for a float (``1e999``), which
Python would read as infinity and which a related-object or integer field cannot convert."""

from __future__ import annotations

import codecs
import math
from typing import Any

from rest_framework.exceptions import ParseError
from rest_framework.parsers import (  # type: ignore[attr-defined]  # stubs predate get_encoding
    JSONParser,
    get_encoding,
)
from rest_framework.utils import json


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"the number {text[:40]} is too large")
    return value


class SafeJSONParser(JSONParser):
    def parse(self, stream: Any, media_type: str | None = None, parser_context: Any = None) -> Any:
        # DRF's own parse, plus the float hook (get_encoding refuses decompressing codecs).
        encoding = get_encoding(parser_context or {})
        constant = json.strict_constant if self.strict else None
        try:
            text = codecs.getreader(encoding)(stream).read()
            return json.loads(text, parse_constant=constant, parse_float=_finite_float)
        except RecursionError as exc:
            raise ParseError("JSON parse error - the document is nested too deeply.") from exc
        except ValueError as exc:
            raise ParseError(f"JSON parse error - {exc}") from exc
