"""Template filters for the evidence a figure rests on: the workload a result measured."""

from __future__ import annotations

from typing import Any

from django import template

from benchmarks.parsers import FORMATS
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


@register.filter
def format_name(format_id: Any) -> str:
    """A result's file format in words ("vLLM serving benchmark (JSON)"), from the parsers'
    registry; an unknown id as it is, and "—" for none."""
    if not format_id:
        return "—"
    return FORMATS.get(str(format_id), str(format_id))
