"""Catalog domain errors (rendered as {"detail", "code", "fields"} by the API handler)."""

from __future__ import annotations

from typing import Any

from core.errors import Conflict, DomainError


class CatalogInvalid(DomainError):
    """One or more fields break a catalog rule; `fields` maps each field to its messages."""

    code = "invalid"

    def __init__(self, fields: dict[str, list[str]], message: str = "") -> None:
        first = next(iter(fields.items()), ("", ["The input is not valid."]))
        default = first[1][0] if first[0] in ("", "__all__") else f"{first[0]}: {first[1][0]}"
        super().__init__(message or default, fields=fields)


class QuoteNotCurrent(Conflict):
    code = "quote_not_current"

    def __init__(self, newer_version: int) -> None:
        super().__init__(
            f"A newer version (v{newer_version}) of this quote exists; revise or withdraw that one."
        )


class QuoteWithdrawn(Conflict):
    code = "quote_withdrawn"
    default_message = "This quote was withdrawn; submit a new quote instead."


class RfqClosed(Conflict):
    code = "rfq_closed"
    default_message = (
        "The RFQ deadline has passed, so answers can no longer be submitted or revised. "
        "Ask the procurement lead to reopen it."
    )


class ImportRejected(DomainError):
    """An import file had errors; nothing was saved. `errors` lists every row problem."""

    code = "import_rejected"

    def __init__(self, errors: list[dict[str, object]], message: str = "") -> None:
        self.errors = errors
        super().__init__(
            message or f"The file has {len(errors)} error(s); nothing was imported.",
            fields={"file": [_describe(e) for e in errors[:200]]},
        )


def _describe(error: dict[str, object]) -> str:
    where = []
    if error.get("row"):
        where.append(f"row {error['row']}")
    if error.get("column"):
        where.append(f"column {error['column']}")
    prefix = (", ".join(where) + ": ") if where else ""
    return f"{prefix}{error['message']}"


class UnusualPrice(DomainError):
    """A price far from the market, entered without the explicit confirmation."""

    code = "unusual_price"

    def __init__(self, check: dict[str, Any], *, staff: bool = False) -> None:
        # A vendor reads public figures only; procurement sees the whole reference.
        said = str((check.get("reference") or {}).get("message") or check["message"])
        said = said if staff else str(check["message"])
        message = (
            f"{said} Check it; if it is right, confirm the unusual price "
            "(tick the box, or send confirm_unusual_price: true)."
        )
        super().__init__(
            message,
            fields={
                str(check.get("field") or "price_per_gpu_hour"): [said],
                "confirm_unusual_price": ["Confirm this price if it is right."],
            },
        )
        self.check = check


class TooManyRevisions(DomainError):
    """A provider's people saved more quote versions in the last hour than the limit (R5)."""

    status_code = 429
    code = "too_many_revisions"
