"""The brief as the decision record states it: each filled-in field its class uses, labelled
as the brief form labels it."""

from __future__ import annotations

from typing import Any

from briefs.rules import FIELD_LABELS, GROUPS, groups_for

__all__ = ["brief_facts", "fact_label"]


def brief_facts(brief: Any) -> list[tuple[str, Any]]:
    """Every filled-in field of the brief that its class uses, labelled, for the record (an
    inference brief's leftover optimizer or sharding is not a fact of this decision)."""
    shown = {f for g in groups_for(brief.workload_class) for f in g.fields}
    skip = {"id", "supersedes", "created_by", "created_at", "title", "description"}
    skip |= {f for g in GROUPS for f in g.fields} - shown
    facts: list[tuple[str, Any]] = []
    for f in brief._meta.concrete_fields:
        if f.name in skip:
            continue
        value = getattr(brief, f.name)
        if value in (None, "", [], {}):
            continue
        if f.choices:
            value = getattr(brief, f"get_{f.name}_display")()
        elif isinstance(value, list):
            value = ", ".join(str(v) for v in value)
        # The brief form's label, which names the currency of money fields.
        facts.append((FIELD_LABELS.get(f.name) or fact_label(str(f.verbose_name)), value))
    return facts


ACRONYMS = {"kv": "KV", "ttft": "TTFT", "itl": "ITL", "e2e": "E2E", "fte": "FTE", "gb": "GB"}


def fact_label(verbose_name: str) -> str:
    """Sentence case that keeps acronyms: "ttft p95 ms" → "TTFT p95 ms"."""
    words = [ACRONYMS.get(w.lower(), w) for w in verbose_name.split()]
    if words and words[0] == verbose_name.split()[0]:
        words[0] = words[0].capitalize()
    return " ".join(words)
