"""Template filters of the reviewer queues: who reviews a section, a count by key."""

from __future__ import annotations

from typing import Any

from django import template

from checklist.queue import section_reviewers

register = template.Library()
register.filter("section_reviewers", section_reviewers)


@register.filter
def get_item(mapping: Any, key: str) -> Any:
    """`mapping[key]`, or None (a dict read by a key held in a template variable)."""
    return mapping.get(key) if hasattr(mapping, "get") else None
