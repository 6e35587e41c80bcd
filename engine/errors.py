"""Errors raised by the pure engine.

The engine refuses nonsense input with one exception type, ``EngineInputError``,
carrying the offending input's ``field`` name and a human-readable ``message``, so an
API layer can render ``{"fields": {field: [message]}}`` without parsing strings.
It subclasses ``ValueError`` so plain Python callers can catch it the usual way.
"""

from __future__ import annotations


class EngineInputError(ValueError):
    """An engine input is missing, out of range or inconsistent with another input."""

    field: str
    message: str

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field
        self.message = message

    def __reduce__(self) -> tuple[type[EngineInputError], tuple[str, str]]:
        # Keep the exception picklable (worker processes, multiprocessing) despite the
        # two-argument constructor.
        return (type(self), (self.field, self.message))
