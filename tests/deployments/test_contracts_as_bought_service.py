"""Contracts as bought through the comparison service and the API (issue 38: P3, P5, P19)."""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal

import pytest
from django.utils import timezone

from core.errors import Conflict
from procurement.services.reviews import review_submit
from tests.deployments.conftest import h200_quote, run_rows, sweep_on

pytestmark = pytest.mark.django_db


def test_p19_a_quote_past_its_valid_until_is_not_eligible(lead, deploy_brief, checklist_items):
    """Quoted 60 days ago, valid until 30 days ago: the row shows its figures but cannot rank."""
    now = timezone.now()
    expired = h200_quote(
        lead, quoted_at=now - timedelta(days=60), valid_until=now - timedelta(days=30)
    )
    sweep_on(lead, expired)
    comparison, rows = run_rows(lead, deploy_brief, [expired])
    row = rows[expired.pk]
    assert not row.eligible
    day = f"{now - timedelta(days=30):%Y-%m-%d}"
    assert any(f"expired on {day}" in r for r in row.reasons), row.reasons
    assert not comparison.recommended_key


def test_p19_a_price_that_expires_before_the_approval_cannot_be_approved(
    lead, finance, deploy_brief, checklist_items, monkeypatch
):
    valid_until = timezone.now() + timedelta(days=1)
    quote = h200_quote(lead, valid_until=valid_until)
    sweep_on(lead, quote)
    comparison, rows = run_rows(lead, deploy_brief, [quote])
    assert rows[quote.pk].eligible
    assert comparison.recommended_key == f"quote:{quote.pk}"
    # The decision waits past the price's last valid moment: the clock is moved, not waited on
    # (a test never depends on how fast the machine computes).
    later = valid_until + timedelta(seconds=1)
    with monkeypatch.context() as clock:
        clock.setattr(timezone, "now", lambda: later)
        with pytest.raises(Conflict, match=r"expired on .* can no longer be bought"):
            review_submit(
                acting_user=finance, comparison=comparison, decision="approve", comment="OK."
            )
    comparison.refresh_from_db()
    assert comparison.status != comparison.Status.APPROVED
    assert not comparison.reviews.exists()  # nothing half-written


def test_p5_capacity_available_only_after_the_horizon_is_not_eligible(
    lead, deploy_brief, checklist_items
):
    """Brief horizon 3 months (91 days); capacity from +150 days, or a 150-day lead time."""
    deploy_brief.horizon_months = 3
    deploy_brief.save()
    later = h200_quote(lead, capacity_available_from=timezone.now() + timedelta(days=150))
    lead_time = h200_quote(lead, capacity_lead_time_days=150, title="H200 on a long lead")
    soon = h200_quote(lead, capacity_lead_time_days=20, title="H200 in 20 days")
    for i, q in enumerate((later, lead_time, soon)):
        sweep_on(lead, q, sha="abc"[i])
    _, rows = run_rows(lead, deploy_brief, [later, lead_time, soon])
    for q in (later, lead_time):
        assert not rows[q.pk].eligible
        assert any("after the brief's 3-month horizon" in r for r in rows[q.pk].reasons)
    assert rows[soon.pk].eligible
    codes = {w["code"]: w["detail"] for w in rows[soon.pk].warnings}
    assert "can start only in 20 days" in codes["CAPACITY_STARTS_LATE"]


def test_p3_a_quote_sold_by_the_16_gpu_node_is_billed_in_whole_nodes(
    api_client, lead, deploy_brief, checklist_items
):
    """8-GPU replicas on a vendor that sells 16-GPU nodes: the GPUs billed a month are whole
    nodes, and What is bought counts the same nodes."""
    api_client.force_authenticate(lead)
    quote = h200_quote(lead, gpus_per_node=16, unit_of_sale="node")
    by_gpu = h200_quote(lead, gpus_per_node=16, unit_of_sale="gpu", title="H200 by the GPU")
    sweep_on(lead, quote, sha="d")
    sweep_on(lead, by_gpu, sha="e")
    assert api_client.get(f"/api/v1/quotes/{quote.pk}/").json()["unit_of_sale"] == "node"
    _, rows = run_rows(lead, deploy_brief, [quote, by_gpu])
    node_row, gpu_row = rows[quote.pk], rows[by_gpu.pk]
    fleet = node_row.detail["fleet"]
    assert fleet["gpus_peak"] % 16 == 8, "the case needs an odd number of 8-GPU replicas"
    billed_nodes = -(-fleet["gpus_peak"] // 16)
    hours = Decimal(node_row.detail["billed_gpu_hours"])
    assert hours == Decimal(billed_nodes * 16 * 730)
    assert fleet["bought"].startswith(f"{billed_nodes} × 16-GPU H200 SXM 141GB nodes")
    # The commitment, and so the FOCUS export's ContractCommitmentQuantity, holds the same nodes
    commitment = node_row.detail["commitment"]
    assert Decimal(commitment["committed_gpu_hours_per_month"]) == hours
    assert Decimal(commitment["contract_usd"]) == hours * Decimal("3.50") * 12
    # By the GPU: 8 fewer GPUs billed, and the words say GPUs
    assert Decimal(gpu_row.detail["billed_gpu_hours"]) == hours - 8 * 730
    assert gpu_row.detail["fleet"]["bought"].startswith(f"{fleet['gpus_peak']} H200 SXM 141GB GPUs")
