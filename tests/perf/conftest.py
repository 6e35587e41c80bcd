"""Perf tests reuse the comparison area's brief and checklist fixtures."""

from __future__ import annotations

from tests.comparisons.conftest import brief, checklist_items  # noqa: F401
