"""Demo data of the decision app: briefs (another area), then one computed comparison.

`manage.py seed_demo` calls `load()` last, after users, catalog, checklist and benchmarks.
The comparison is computed synchronously in-process, so `make run` opens on a READY
comparison waiting for finance review even before the worker is up. Idempotent.
"""

from __future__ import annotations

from typing import Any

from accounts.models import User
from briefs import demo as briefs_demo
from briefs.models import WorkloadBrief
from procurement.models import Comparison
from procurement.services.comparisons import comparison_create, comparison_run

DEMO_SEED = 20_260_101
DEMO_TITLE = "Support chat: every current offer"


def _say(stdout: Any, text: str) -> None:
    if stdout is not None:
        stdout.write(text)


def demo_brief() -> WorkloadBrief | None:
    """The first complete, current real-time inference brief."""
    briefs = (
        WorkloadBrief.objects.filter(
            workload_class="realtime_inference", superseded_by__isnull=True
        )
        .select_related("model")
        .order_by("created_at", "pk")
    )
    return next((b for b in briefs if b.is_complete), None)


def load(stdout: Any = None) -> None:
    briefs_demo.load(stdout=stdout)
    lead = User.objects.filter(username="lead").first()
    brief = demo_brief()
    if lead is None or brief is None:
        _say(stdout, "Comparisons: no lead user or no complete real-time brief; skipped.")
        return
    if Comparison.objects.filter(brief=brief).exists():
        _say(stdout, "Comparisons: the demo comparison exists already.")
        return
    comparison = comparison_create(
        acting_user=lead, brief=brief, seed=DEMO_SEED, title=DEMO_TITLE, enqueue=False
    ).comparison
    comparison_run(comparison_id=comparison.pk)
    comparison.refresh_from_db()
    _say(
        stdout,
        f"Comparisons: '{comparison.title}' is {comparison.status} "
        f"with {comparison.candidates.count()} candidates.",
    )
