"""When a vendor first opens an RFQ: kept in the audit trail (one event per provider), so the
RFQ page can tell the lead who has seen it and who has not."""

from __future__ import annotations

from typing import Any

from core.audit import audit_record
from core.models import AuditEvent

RFQ_VIEWED = "rfq.viewed"


def rfq_viewed_record(*, acting_user: Any, rfq: Any) -> bool:
    """Record the first view of `rfq` by the acting vendor's provider; False if not first."""
    provider_id = getattr(acting_user, "provider_id", None)
    if provider_id is None:
        return False
    seen = AuditEvent.objects.filter(
        action=RFQ_VIEWED,
        object_type="catalog.rfq",
        object_id=str(rfq.pk),
        summary__provider=provider_id,
    ).exists()
    if seen:
        return False
    audit_record(actor=acting_user, action=RFQ_VIEWED, obj=rfq, summary={"provider": provider_id})
    return True
