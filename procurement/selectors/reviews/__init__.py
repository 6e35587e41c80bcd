"""Reads for the review screens, the decision record, the exports and the audit page."""

from procurement.selectors.reviews.audit import (
    AUDIT_READER_ROLES,
    audit_events_filtered,
    audit_filter_choices,
)
from procurement.selectors.reviews.brief_facts import brief_facts
from procurement.selectors.reviews.record import (
    assumptions_of,
    export_data_for,
    flatten,
    side_by_side,
)
from procurement.selectors.reviews.rows import (
    SORTS,
    ReviewRow,
    approvals_given,
    candidates_of,
    capacity_choices,
    filter_and_sort,
    history_of,
    ordered_lines,
    plans_for_quotes,
    provider_choices,
    recommendation_summary,
    review_rows,
    reviews_of,
    safe_reverse,
    to_decimal,
)

__all__ = [
    "AUDIT_READER_ROLES",
    "SORTS",
    "ReviewRow",
    "approvals_given",
    "assumptions_of",
    "audit_events_filtered",
    "audit_filter_choices",
    "brief_facts",
    "candidates_of",
    "capacity_choices",
    "export_data_for",
    "filter_and_sort",
    "flatten",
    "history_of",
    "ordered_lines",
    "plans_for_quotes",
    "provider_choices",
    "recommendation_summary",
    "review_rows",
    "reviews_of",
    "safe_reverse",
    "side_by_side",
    "to_decimal",
]
