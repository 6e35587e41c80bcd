"""The single exception type raised by the parsers."""

from __future__ import annotations


class ParseError(Exception):
    """The file could not be parsed.

    ``message`` is meant for humans: it names the formats that were tried and what was
    missing or wrong (field, row). ``format_id`` is the detected format when detection
    succeeded but the content was invalid, else None.
    """

    def __init__(self, message: str, format_id: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.format_id = format_id

    def __str__(self) -> str:
        return self.message
