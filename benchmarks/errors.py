"""Errors of the benchmarks area (DomainError: the API renders them, HTML views show them)."""

from __future__ import annotations

from core.errors import DomainError


class UploadRejected(DomainError):
    """The file was refused; nothing was stored. The message says why (formats tried, field)."""

    code = "upload_rejected"

    def __init__(
        self, message: str, *, field: str = "file", fields: dict[str, list[str]] | None = None
    ) -> None:
        # `fields`: a refusal that asks for several fields at once (model and precision).
        super().__init__(message, fields=fields or {field: [message]})


class UploadTooLarge(UploadRejected):
    code = "upload_too_large"
    status_code = 413


class StepNotManual(DomainError):
    code = "step_not_manual"
    status_code = 409
    default_message = "This step is judged from uploaded results; it cannot be checked by hand."
