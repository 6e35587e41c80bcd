"""Quote services: submit, revise (new version, old untouched), withdraw, and their rules."""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal

import pytest
from django.forms.models import model_to_dict
from django.utils import timezone

from catalog import services
from catalog.errors import CatalogInvalid, QuoteNotCurrent, QuoteWithdrawn, RfqClosed
from catalog.models import Quote, Rfq
from core.errors import NotAllowed, NotFound
from core.models import AuditEvent

pytestmark = pytest.mark.django_db


def _row(quote: Quote) -> dict:
    """Every column of the row as stored."""
    return dict(Quote.objects.filter(pk=quote.pk).values().get())


def test_lead_submits_version_one_with_audit(lead, provider_a, quote_data):
    quote = services.quote_submit(acting_user=lead, data=quote_data, provider=provider_a)
    assert (quote.version, quote.status, quote.entered_by) == (1, "submitted", lead)
    assert quote.provider == provider_a
    assert AuditEvent.objects.filter(action="quote.submitted", object_id=str(quote.pk)).count() == 1


def test_vendor_submission_is_forced_to_own_provider(vendor_a, provider_b, rfq, quote_data):
    quote = services.quote_submit(
        acting_user=vendor_a, data=quote_data, provider=provider_b, rfq=rfq
    )
    assert quote.provider == vendor_a.provider
    assert quote.is_public_list_price is False


def test_revise_keeps_old_row_byte_identical_and_links_versions(vendor_a, quote_a):
    before = _row(quote_a)
    new = services.quote_revise(
        acting_user=vendor_a, quote=quote_a, data={"price_per_gpu_hour": Decimal("2.19")}
    )
    assert _row(quote_a) == before
    assert new.version == quote_a.version + 1
    assert new.supersedes_id == quote_a.pk
    assert new.price_per_gpu_hour == Decimal("2.19")
    assert new.provider_id == quote_a.provider_id
    assert new.rfq_id == quote_a.rfq_id
    copied = {
        k: v
        for k, v in model_to_dict(new).items()
        if k not in {"id", "version", "supersedes", "price_per_gpu_hour", "quoted_at", "entered_by"}
    }
    original = {k: v for k, v in model_to_dict(quote_a).items() if k in copied}
    assert copied == original


def test_revising_an_old_version_is_a_conflict(vendor_a, quote_a):
    services.quote_revise(acting_user=vendor_a, quote=quote_a, data={})
    with pytest.raises(QuoteNotCurrent) as exc:
        services.quote_revise(acting_user=vendor_a, quote=quote_a, data={})
    assert "v2" in exc.value.message
    assert Quote.objects.filter(provider=quote_a.provider).count() == 2


def test_withdraw_is_a_new_version_and_blocks_further_revision(vendor_a, quote_a):
    withdrawn = services.quote_withdraw(acting_user=vendor_a, quote=quote_a, reason="sold out")
    assert withdrawn.status == Quote.Status.WITHDRAWN
    assert withdrawn.supersedes == quote_a
    assert Quote.objects.filter(pk=quote_a.pk).exists()
    assert not Quote.objects.current().filter(provider=quote_a.provider).exists()
    with pytest.raises(QuoteWithdrawn):
        services.quote_revise(acting_user=vendor_a, quote=withdrawn, data={})


def test_vendor_cannot_revise_another_providers_quote(vendor_b, quote_a):
    with pytest.raises(NotFound):
        services.quote_revise(acting_user=vendor_b, quote=quote_a, data={})
    assert Quote.objects.count() == 1


def test_vendor_cannot_revise_after_the_rfq_deadline(vendor_a, quote_a, lead):
    Rfq.objects.filter(pk=quote_a.rfq_id).update(deadline=timezone.now() - timedelta(hours=1))
    quote_a.refresh_from_db()
    with pytest.raises(RfqClosed):
        services.quote_revise(acting_user=vendor_a, quote=quote_a, data={})
    # H6: nor can procurement change the vendor's price; nothing was written.
    with pytest.raises(NotAllowed, match="submitted by the vendor"):
        services.quote_revise(acting_user=lead, quote=quote_a, data={})
    assert not Quote.objects.filter(supersedes=quote_a).exists()


def test_h6_staff_cannot_change_a_vendors_submitted_price(lead, admin_member, quote_a):
    for staff in (lead, admin_member):
        with pytest.raises(NotAllowed, match="ask them for a revision"):
            services.quote_revise(
                acting_user=staff, quote=quote_a, data={"price_per_gpu_hour": "0.01"}
            )
    assert not Quote.objects.filter(supersedes=quote_a).exists()


def test_h6_staff_revise_their_own_quotes_and_may_withdraw_a_vendors(lead, staff_quote, quote_a):
    assert services.quote_revise(acting_user=lead, quote=staff_quote, data={}).version == 2
    withdrawn = services.quote_withdraw(acting_user=lead, quote=quote_a, reason="fraud")
    assert withdrawn.status == Quote.Status.WITHDRAWN


def test_vendor_cannot_answer_an_rfq_addressed_to_others(vendor_a, provider_b, lead, quote_data):
    other = Rfq.objects.create(
        title="B only", deadline=timezone.now() + timedelta(days=1), created_by=lead
    )
    other.providers.set([provider_b])
    with pytest.raises(NotFound):
        services.quote_submit(acting_user=vendor_a, data=quote_data, rfq=other)
    assert not Quote.objects.exists()


def test_engineer_cannot_enter_quotes(engineer, provider_a, quote_data):
    with pytest.raises(NotAllowed):
        services.quote_submit(acting_user=engineer, data=quote_data, provider=provider_a)


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"price_per_gpu_hour": Decimal("0")}, "price_per_gpu_hour"),
        ({"price_per_gpu_hour": Decimal("-1.5")}, "price_per_gpu_hour"),
        ({"price_per_gpu_hour": None}, "price_per_gpu_hour"),
        ({"currency": "XYZ"}, "currency"),
        ({"valid_until": timezone.now() - timedelta(days=3)}, "valid_until"),
        ({"quoted_at": timezone.now() + timedelta(days=1)}, "quoted_at"),
        ({"gpus_per_node": 0}, "gpus_per_node"),
        ({"gpus_per_node": 16}, "gpus_per_node"),
        ({"capacity_model": "purchase", "price_per_node": None}, "price_per_node"),
        ({"capacity_model": "reserved", "term_months": 0}, "term_months"),
        ({"storage_per_gb_month": Decimal("-0.1")}, "storage_per_gb_month"),
        ({"source_url": "", "source_document": ""}, "source_url"),
    ],
)
def test_rules_reject_with_a_message_on_the_field(lead, provider_a, quote_data, change, field):
    with pytest.raises(CatalogInvalid) as exc:
        services.quote_submit(acting_user=lead, data={**quote_data, **change}, provider=provider_a)
    assert field in exc.value.fields
    assert exc.value.fields[field][0]
    assert not Quote.objects.exists()


def test_rack_scale_accepts_72_gpus(lead, provider_a, quote_data, catalog):
    data = {**quote_data, "accelerator": catalog["gb200-per-gpu-186gb"], "gpus_per_node": 72}
    assert services.quote_submit(acting_user=lead, data=data, provider=provider_a).pk


def test_purchase_quote_needs_no_hourly_price(lead, provider_a, quote_data):
    data = {
        **quote_data,
        "capacity_model": "purchase",
        "price_per_gpu_hour": None,
        "price_per_node": Decimal("280000"),
        "amortisation_months": 36,
    }
    quote = services.quote_submit(acting_user=lead, data=data, provider=provider_a)
    assert quote.price_per_node == Decimal("280000")


def test_rfq_restricts_accelerators_and_capacity(vendor_a, rfq, quote_data, catalog):
    rfq.accelerators.set([catalog["h200-sxm-141gb"]])
    rfq.capacity_models = ["reserved"]
    rfq.save()
    with pytest.raises(CatalogInvalid) as exc:
        services.quote_submit(acting_user=vendor_a, data=quote_data, rfq=rfq)
    assert {"accelerator", "capacity_model"} <= set(exc.value.fields)


def test_the_lineage_selector_walks_all_versions_in_one_query(
    vendor_a, quote_a, django_assert_num_queries
):
    from catalog import selectors

    v2 = services.quote_revise(acting_user=vendor_a, quote=quote_a, data={})
    v3 = services.quote_revise(acting_user=vendor_a, quote=v2, data={})
    with django_assert_num_queries(1):
        assert [q.version for q in selectors.quote_lineage(v2)] == [1, 2, 3]
    with django_assert_num_queries(1):
        assert [q.version for q in selectors.quote_lineage(v3)] == [1, 2, 3]
