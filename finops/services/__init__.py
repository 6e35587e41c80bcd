"""Writes of the FinOps app: billing imports (stored, then read by a worker), the team's
counts of accepted outputs, and the monthly reconciliation they feed.

Nothing is half-imported: an upload whose header is not FOCUS is refused before a byte is
stored; the worker reads the whole file before writing anything, and writes the totals, the
reconciliation and the audit event in one transaction, or marks the import FAILED with the
row and column that stopped it. Counts are written all months or none.
"""

from __future__ import annotations

from finops.services.bills import (
    IMPORT_TASK,
    IMPORT_TIME_LIMIT_S,
    MAX_ATTEMPTS,
    PENDING_GRACE,
    PROGRESS_EVERY,
    TOTAL_MAX,
    billing_import_create,
    billing_import_run,
    billing_import_submit,
    billing_imports_redrive_stuck,
    vars_of,
)
from finops.services.common import actual_outputs_check, billing_import_check, drift_tolerance
from finops.services.focus import FOCUS_FORMATS, FocusFile, focus_export
from finops.services.reconcile import (
    actual_outputs_record,
    billed_month_record,
    reconciliation_refresh,
)

__all__ = [
    "FOCUS_FORMATS",
    "IMPORT_TASK",
    "IMPORT_TIME_LIMIT_S",
    "MAX_ATTEMPTS",
    "PENDING_GRACE",
    "PROGRESS_EVERY",
    "TOTAL_MAX",
    "FocusFile",
    "actual_outputs_check",
    "actual_outputs_record",
    "billed_month_record",
    "billing_import_check",
    "billing_import_create",
    "billing_import_run",
    "billing_import_submit",
    "billing_imports_redrive_stuck",
    "drift_tolerance",
    "focus_export",
    "reconciliation_refresh",
    "vars_of",
]
