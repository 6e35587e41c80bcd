"""Domain errors: a code, a human message, and per-field messages.

Services raise them; the API renders {"detail", "code", "fields"} and HTML views turn them
into form errors or messages.
"""

from __future__ import annotations


class DomainError(Exception):
    code = "invalid"
    status_code = 400
    default_message = "The request is not valid."

    def __init__(self, message: str = "", *, fields: dict[str, list[str]] | None = None) -> None:
        self.message = message or self.default_message
        self.fields = fields or {}
        super().__init__(self.message)


class NotAllowed(DomainError):
    code = "not_allowed"
    status_code = 403
    default_message = "You are not allowed to do this."


class NotFound(DomainError):
    code = "not_found"
    status_code = 404
    default_message = "Not found."


class Conflict(DomainError):
    code = "conflict"
    status_code = 409
    default_message = "Someone else changed this first; reload and try again."
