"""Comparison lifecycle services (writes): create, run, retry, re-drive, recompute.

Callable from views, the API, Celery tasks and other areas (the finance review uses
`comparison_recompute` for "recompute creates a new revision").
"""

from core.jobs import STALE_AFTER
from procurement.services.comparisons.create import comparison_create, comparison_recompute
from procurement.services.comparisons.queue import (
    QUEUE_UNAVAILABLE_MESSAGE,
    EnqueueOutcome,
    Queued,
    comparison_retry,
    comparisons_redrive_stuck,
    send_comparison,
)
from procurement.services.comparisons.run import (
    MAX_ATTEMPTS,
    comparison_deliver,
    comparison_run,
)
from procurement.services.comparisons.selection import (
    FILTER_KEYS,
    LIST_LIMIT,
    MAX_IDS,
    CandidateRows,
    FilterChoices,
    candidate_rows,
    filter_choices,
    first_filters,
)

__all__ = [
    "FILTER_KEYS",
    "LIST_LIMIT",
    "MAX_ATTEMPTS",
    "MAX_IDS",
    "QUEUE_UNAVAILABLE_MESSAGE",
    "STALE_AFTER",
    "CandidateRows",
    "EnqueueOutcome",
    "FilterChoices",
    "Queued",
    "candidate_rows",
    "comparison_create",
    "comparison_deliver",
    "comparison_recompute",
    "comparison_retry",
    "comparison_run",
    "comparisons_redrive_stuck",
    "filter_choices",
    "first_filters",
    "send_comparison",
]
