"""RFQ writes: procurement opens an RFQ to chosen providers, and reopens it after the deadline."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

from django.db import models, transaction
from django.db.models.functions import Least
from django.utils import timezone

from accounts.models import User
from catalog import access
from catalog.errors import CatalogInvalid
from catalog.models import Rfq
from catalog.validation import rfq_rule_errors
from core.audit import audit_record
from core.errors import Conflict
from core.roles import require_role

# An RFQ's own fields as entered (its providers and accelerators are set after it is saved).
RFQ_INPUT_FIELDS = tuple(
    f.name
    for f in Rfq._meta.concrete_fields
    if f.editable and f.name not in {"id", "status", "created_by", "reopened_at"}
)


@transaction.atomic
def rfq_create(*, acting_user: User, data: Mapping[str, Any]) -> Rfq:
    """Open an RFQ. `data` carries `providers` and `accelerators` as iterables of instances."""
    require_role(acting_user, *access.CATALOG_WRITERS)
    providers = list(data.get("providers") or [])
    accelerators = list(data.get("accelerators") or [])
    values = {k: data.get(k) for k in RFQ_INPUT_FIELDS if k in data}
    values["capacity_models"] = list(values.get("capacity_models") or [])
    if errors := rfq_rule_errors({**values, "providers": providers}):
        raise CatalogInvalid(errors)
    rfq = Rfq.objects.create(**values, created_by=acting_user, status=Rfq.Status.OPEN)
    rfq.providers.set(providers)
    rfq.accelerators.set(accelerators)
    audit_record(
        actor=acting_user,
        action="rfq.created",
        obj=rfq,
        summary={
            "providers": sorted(p.slug for p in providers),
            "accelerators": sorted(a.slug for a in accelerators),
            "deadline": rfq.deadline.isoformat(),
        },
    )
    return rfq


@transaction.atomic
def rfq_reopen(*, acting_user: User, rfq: Rfq, deadline: datetime | None) -> Rfq:
    """Give invited providers a new deadline; only once the old one has passed or was closed."""
    require_role(acting_user, *access.CATALOG_WRITERS)
    locked = Rfq.objects.select_for_update().get(pk=rfq.pk)
    if locked.is_open_for_answers():
        raise Conflict("This RFQ is still open; it can be reopened once its deadline has passed.")
    if deadline is None or deadline <= timezone.now():
        raise CatalogInvalid({"deadline": ["The new deadline must be in the future."]})
    old_deadline = locked.deadline
    Rfq.objects.filter(pk=locked.pk).update(
        deadline=deadline, status=Rfq.Status.OPEN, reopened_at=timezone.now()
    )
    locked.refresh_from_db()
    audit_record(
        actor=acting_user,
        action="rfq.reopened",
        obj=locked,
        summary={"from": old_deadline.isoformat(), "to": deadline.isoformat()},
    )
    return locked


@transaction.atomic
def rfq_close(*, acting_user: User, rfq: Rfq) -> Rfq:
    """Stop taking answers before the deadline.

    The deadline moves to the closing time (never later), so "answered after the deadline"
    means "answered after the RFQ stopped taking answers" for the checklist's freeze."""
    require_role(acting_user, *access.CATALOG_WRITERS)
    updated = Rfq.objects.filter(pk=rfq.pk, status=Rfq.Status.OPEN).update(
        status=Rfq.Status.CLOSED, deadline=Least("deadline", models.Value(timezone.now()))
    )
    if not updated:
        raise Conflict("This RFQ is already closed.")
    rfq.refresh_from_db()
    audit_record(actor=acting_user, action="rfq.closed", obj=rfq)
    return rfq


RFQ_AWARDED = "rfq.awarded"


@transaction.atomic
def rfqs_close_on_decision(
    *, acting_user: User, rfq_ids: list[int], decision: Mapping[str, Any]
) -> list[Rfq]:
    """Close the RFQs whose answers an approved decision weighed, naming the decision.

    Not a writer's action but the decision's consequence (the approver may be finance), so no
    role check: the caller is the approval path. An RFQ already closed still records which
    decision drew on its answers; the deadline only ever moves earlier, as `rfq_close`."""
    rfqs = list(Rfq.objects.select_for_update().filter(pk__in=rfq_ids).order_by("pk"))
    Rfq.objects.filter(pk__in=[r.pk for r in rfqs], status=Rfq.Status.OPEN).update(
        status=Rfq.Status.CLOSED, deadline=Least("deadline", models.Value(timezone.now()))
    )
    for rfq in rfqs:
        rfq.refresh_from_db()
        audit_record(actor=acting_user, action=RFQ_AWARDED, obj=rfq, summary=dict(decision))
    return rfqs
