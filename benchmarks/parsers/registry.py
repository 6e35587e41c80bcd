"""The format registry: each format module declares its formats here, once.

A :class:`Format` says what the format is called, what detection looks for (shown to the user
when nothing matches), how to recognise it and how to parse it. ``parsers/__init__.py`` builds
its detection order, messages and dispatch from the modules' ``FORMATS`` tuples.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final

from .types import ParsedResult

ProgressFn = Callable[[float], None]

#: what ``sniff`` is given
JSON_OBJECT: Final = "json-object"  # a decoded JSON object
JSON_LIST: Final = "json-list"  # a decoded JSON array
TEXT: Final = "text"  # the first 64 KB of a text file
CSV_HEADER: Final = "csv-header"  # the first line of a text file, split into cells


@dataclass(frozen=True, slots=True)
class Format:
    id: str
    name: str
    #: what detection looks for, in words (listed when a file matches nothing)
    rule: str
    parse: Callable[[Any, ProgressFn | None], ParsedResult]
    sniff: Callable[[Any], bool] | None = None
    input: str = JSON_OBJECT
    #: detection order among the formats with the same input (lower is tried first)
    order: int = 100
    #: ``parse`` takes the file's bytes (large CSV files are never decoded as a whole)
    raw: bool = False
