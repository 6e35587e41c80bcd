"""Reads for the review screens, the decision record, the exports and the audit page."""

from procurement.selectors.reviews.audit import (
    AUDIT_READER_ROLES,
    audit_events_filtered,
    audit_filter_choices,
)
from procurement.selectors.reviews.brief_facts import brief_facts
from procurement.selectors.reviews.record import (
    export_data_for,
    side_by_side,
)
from procurement.selectors.reviews.rows import (
    SORTS,
    candidates_of,
    capacity_choices,
    filter_and_sort,
    provider_choices,
)

__all__ = [
    "AUDIT_READER_ROLES",
    "SORTS",
    "audit_events_filtered",
    "audit_filter_choices",
    "brief_facts",
    "candidates_of",
    "capacity_choices",
    "export_data_for",
    "filter_and_sort",
    "provider_choices",
    "side_by_side",
]
