"""What another app shows on catalog pages: the checklist summary of a quote.

Pages and the API compose; the catalog's models, services and selectors never read the
checklist (an import-linter contract), so this module is the one place the catalog asks it.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from catalog.models import Quote
from checklist.selectors import quote_checklist_summaries, quote_checklist_summary

checklist_summary = quote_checklist_summary  # one quote's, for its page and the API


def checklist_summaries(quotes: Iterable[Quote]) -> dict[int, dict[str, Any]]:
    """{quote id: summary} in a fixed number of queries."""
    quotes = list(quotes)
    return quote_checklist_summaries(quotes) if quotes else {}
