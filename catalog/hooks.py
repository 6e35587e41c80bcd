"""What the quote services call after a new version replaces a quote (a hook, not a signal).

The catalog sits below the decisions app and cannot import it, yet a revision or withdrawal
of a quote that an approved decision relies on must flag that decision in the same
transaction. Apps above register a function here once (in `AppConfig.ready`); the services
call `quote_replaced` explicitly, inside their transaction, so a failure rolls the revision
back with it. Nothing runs behind the caller's back: there is one registry and one call site
per write path (revise, withdraw, bulk import).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from catalog.models import Quote

# Handlers may return a count (of what they did); the services ignore it.
QuoteReplaced = Callable[[Sequence[tuple["Quote", "Quote"]], Any], object]
_on_replaced: list[QuoteReplaced] = []


def on_quote_replaced(handler: QuoteReplaced) -> QuoteReplaced:
    """Register `handler(pairs, acting_user)`; registering the same function twice is a no-op."""
    if handler not in _on_replaced:
        _on_replaced.append(handler)
    return handler


def quote_replaced(pairs: Sequence[tuple[Quote, Quote]], acting_user: Any) -> None:
    """(old version, new version) pairs just saved; call inside the writing transaction."""
    if not pairs:
        return
    for handler in _on_replaced:
        handler(pairs, acting_user)
