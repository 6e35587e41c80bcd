"""Template filters for the evidence a figure rests on: the workload a result measured."""

from __future__ import annotations

from typing import Any

from django import template

from benchmarks.workload import workload_summary, workload_summary_of

register = template.Library()


@register.filter
def workload(value: Any) -> str:
    """A result (row or frozen snapshot dict) → 'model · precision · GPUs · tokens · …'."""
    if not value:
        return ""
    if isinstance(value, dict):
        return workload_summary_of(value)
    return workload_summary(value)
