"""Reads on workload briefs: lists, one brief with its version chain, and its memory fit.

Every function takes the user (or an object obtained through `procurement.access`), and the
query count of each page is fixed: it does not grow with rows, versions or accelerators.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from django.db.models import QuerySet
from django.db.models.expressions import RawSQL

from briefs import access
from briefs.fit import AcceleratorFit, fit_accelerators
from briefs.models import TrafficTrace, WorkloadBrief, WorkloadClass
from briefs.services import brief_volume
from briefs.volume import CONSIDERED_WITHIN, considered_fleets
from catalog import access as catalog_access
from catalog.models import Accelerator
from core.roles import get_or_404

if TYPE_CHECKING:
    from accounts.models import User

SHORTLIST_SIZE = 6


def briefs_list(
    user: User, *, current_only: bool = True, workload_class: str | None = None
) -> QuerySet[WorkloadBrief]:
    """Briefs the user may read, newest first; by default only the latest version of each."""
    qs = access.briefs_for(user).select_related("supersedes", "superseded_by")
    if current_only:
        qs = qs.filter(superseded_by__isnull=True)
    if workload_class in WorkloadClass.values:
        qs = qs.filter(workload_class=workload_class)
    return qs.order_by("-created_at", "-pk")


def brief_get(user: User, brief_id: Any) -> WorkloadBrief:
    """One brief the user may read (404 for missing or forbidden, vendors included)."""
    qs = access.briefs_for(user).select_related("supersedes", "superseded_by")
    return get_or_404(qs, pk=brief_id)


def _lineage_sql() -> str:
    table = WorkloadBrief._meta.db_table
    # Walk back through `supersedes` and forward through the rows superseding it: one query
    # whatever the number of versions (PostgreSQL and SQLite both speak WITH RECURSIVE).
    return f"""
        WITH RECURSIVE back(id, supersedes_id) AS (
            SELECT id, supersedes_id FROM {table} WHERE id = %s
            UNION SELECT b.id, b.supersedes_id FROM {table} b JOIN back ON b.id = back.supersedes_id
        ), fwd(id) AS (
            SELECT id FROM {table} WHERE id = %s
            UNION SELECT b.id FROM {table} b JOIN fwd ON b.supersedes_id = fwd.id
        )
        SELECT id FROM back UNION SELECT id FROM fwd
    """  # noqa: S608 - the table name comes from the model, the ids are parameters  # nosec B608


def brief_versions(brief: WorkloadBrief) -> list[WorkloadBrief]:
    """Every version of the brief's lineage, oldest first (one query)."""
    # The SQL is a constant built from the model's table name; the ids are parameters.
    ids = RawSQL(_lineage_sql(), [brief.pk, brief.pk])  # noqa: S611  # nosec B611
    return list(
        WorkloadBrief.objects.filter(pk__in=ids)
        .select_related("created_by")
        .only("pk", "version", "title", "created_at", "created_by__username", "supersedes_id")
        .order_by("version")
    )


def brief_fit_rows(brief: WorkloadBrief) -> list[AcceleratorFit]:
    """The brief's memory fit on every catalog accelerator (one query), sorted."""
    if brief.model is None:
        return []
    return fit_accelerators(brief, Accelerator.objects.order_by("name"))


def shortlist(rows: list[AcceleratorFit], size: int = SHORTLIST_SIZE) -> list[AcceleratorFit]:
    """The first `size` accelerators that fit (rows are already sorted best first)."""
    return [row for row in rows if row.fits][:size]


@dataclass(frozen=True, slots=True)
class RfqSizing:
    """What an RFQ for a brief asks for, from the brief's memory fit (V8, U10)."""

    accelerator_ids: list[int]  # every accelerator the brief fits, fewest GPUs per replica first
    gpus_needed: int | None  # one figure only when every accelerator needs the same
    words: str  # the sizing as the RFQ text says it


def _replica_gpus(row: AcceleratorFit) -> int:
    return row.result.gpus_required if row.result else 1


def brief_rfq_sizing(brief: WorkloadBrief) -> RfqSizing | None:
    """The accelerators the brief fits and the GPUs it needs on each, for pre-filling an RFQ;
    None when the brief names no model or fits nowhere. A fit with headroom under the margin
    (amber) is asked for only when nothing fits with room to spare. Every fitting
    accelerator whose peak fleet is within `CONSIDERED_WITHIN` × the smallest is asked for,
    each with its own count (one count from the most favourable part had a vendor of another
    under-quote it 8×, U10); the text names the others that fit."""
    every = brief_fit_rows(brief)
    rows = shortlist(every, size=len(every))  # every fitting row, best first
    fits = [r for r in rows if r.status == "fits"] or rows
    if not fits:
        return None
    ids = dict(
        Accelerator.objects.filter(slug__in=[f.slug for f in fits]).values_list("slug", "pk")
    )
    per_replica = [f"{f.result.gpus_required} × {f.name}" for f in fits[:3] if f.result]
    listed = (
        ", ".join(per_replica[:-1]) + f" or {per_replica[-1]}"
        if len(per_replica) > 1
        else per_replica[0]
    )
    words = f"memory fit at the brief's context: a replica needs {listed}"
    echo, fleets = brief_volume(brief)
    considered = {f.accelerator_name: f.gpus_peak for f in considered_fleets(fleets)}
    larger = [f.name for f in fits if considered and f.name not in considered]
    if considered:  # by fleet at the brief's volume, fewest GPUs at peak first
        fits = sorted((f for f in fits if f.name in considered), key=lambda f: considered[f.name])
    needs = [(f.name, considered.get(f.name) or _replica_gpus(f)) for f in fits]
    if considered and echo is not None and echo.peak_output_tokens_per_s:
        words += (
            f"; GPUs needed at peak on each accelerator (a roofline estimate for "
            f"≈ {echo.peak_output_tokens_per_s:,.0f} output tokens/s at peak): "
            + ", ".join(f"{gpus:,} × {name}" for name, gpus in needs)
        )
        if larger:  # said, not silently dropped: the lead may tick them
            words += f"; also fits with a fleet over {CONSIDERED_WITHIN}× larger: " + ", ".join(
                larger
            )
    counts = {gpus for _, gpus in needs}
    gpus_needed = counts.pop() if len(counts) == 1 else None
    return RfqSizing([ids[f.slug] for f in fits if f.slug in ids], gpus_needed, words)


def calculator_choices(user: User) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    """(model choices, accelerator choices) for the calculator form, as (slug, label); a
    vendor is offered reference models only."""
    profiles = catalog_access.model_profiles_for(user).order_by("family", "name")
    models = [(slug, name) for slug, name in profiles.values_list("slug", "name")]
    accelerators = [
        (slug, f"{name} ({memory:g} GB)")
        for slug, name, memory in Accelerator.objects.order_by("vendor", "name").values_list(
            "slug", "name", "memory_gb"
        )
    ]
    return models, accelerators


def ready_trace_for(brief: WorkloadBrief) -> TrafficTrace | None:
    """The newest trace of this brief that was read (the one a comparison sizes from)."""
    return (
        TrafficTrace.objects.filter(brief=brief, status=TrafficTrace.Status.READY)
        .order_by("-created_at", "-pk")
        .first()
    )


def traces_of(brief: WorkloadBrief) -> list[TrafficTrace]:
    return list(TrafficTrace.objects.filter(brief=brief).select_related("uploaded_by"))
