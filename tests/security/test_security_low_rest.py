"""The rest of the low findings (round two): L4 case by case, L6's price band, L8's separation
of duties, the purge of L10's one-time form tokens, and L16's order-free dual approval."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.django_db

# Every case L4 lists, as (field, value): "acceptance rates 0, failure rates 1, utilisation 0,
# egress -1, concurrency 0, horizon 0 or 10^9 months, 1e308 volumes / peak-to-average / FTE /
# storage".
L4_CASES = [
    *(("acceptance_rate_" + part, 0.0) for part in ("low", "likely", "high")),
    *(("failure_rate_" + part, 1.0) for part in ("low", "likely", "high")),
    *(("utilisation_" + part, 0.0) for part in ("low", "likely", "high")),
    ("egress_gb_month", -1.0),
    ("concurrency", 0),
    ("horizon_months", 0),
    ("horizon_months", 10**9),
    *(("monthly_accepted_outputs_" + part, 1e308) for part in ("low", "likely", "high")),
    ("peak_to_average", 1e308),
    ("platform_fte", 1e308),
    ("storage_gb", 1e308),
]


@pytest.mark.parametrize(("field", "value"), L4_CASES, ids=[f"{f}={v:g}" for f, v in L4_CASES])
def test_l4_a_brief_value_the_engine_refuses_is_refused_with_the_field_named(field, value, lead):
    """L4: each value the finding lists is refused where it is typed, with its field named and
    its label in the message, and no brief is saved (it was saved as "complete")."""
    from briefs.models import WorkloadBrief
    from briefs.rules import brief_errors, field_label
    from briefs.services import brief_create
    from core.errors import DomainError

    errors = brief_errors({field: value})
    assert list(errors) == [field]
    label = field_label(field).split(" (")[0]
    assert label in errors[field][0]
    data = {"title": "Chat", "workload_class": "realtime_inference", field: value}
    with pytest.raises(DomainError) as refused:
        brief_create(acting_user=lead, data=data)
    assert field in refused.value.fields
    assert not WorkloadBrief.objects.exists()


def test_l4_the_rate_bounds_are_the_comparison_overrides_bounds():
    """L4: "the assumption overrides on comparisons are validated properly (0.01-1, finite), so
    briefs could reuse those rules": the brief's rate bounds are the overrides' own."""
    from briefs.rules import RATE_BOUNDS, brief_errors
    from procurement.snapshot.assumptions import RANGED

    for base, (lo, hi) in RATE_BOUNDS.items():
        assert (RANGED[base].lo, RANGED[base].hi) == (lo, hi)
        assert brief_errors({f"{base}_likely": lo}) == {}
        assert brief_errors({f"{base}_likely": hi}) == {}
    assert brief_errors({"concurrency": 1}) == {}


def test_l10_old_form_tokens_are_purged_on_the_next_write_in_bounded_batches(lead):
    """L10's one-time tokens (`core.submissions`) are kept a week, then purged by the next
    write that stores one, at most PURGE_BATCH rows at a time; recent ones stay."""
    from datetime import timedelta

    from django.test import RequestFactory
    from django.utils import timezone

    from core import submissions
    from core.models import FormSubmission

    now = timezone.now()
    old = now - submissions.KEEP - timedelta(minutes=1)
    FormSubmission.objects.bulk_create(
        FormSubmission(token=f"old-token-{n:06d}", user=lead, created_at=old)
        for n in range(submissions.PURGE_BATCH + 3)
    )
    FormSubmission.objects.create(token="recent-token-000001", user=lead)

    request = RequestFactory().post("/", {submissions.FIELD: "fresh-token-0000001"})
    request.user = lead
    with submissions.once(request) as slot:
        slot.made("/done/")
    assert FormSubmission.objects.filter(created_at__lt=now - submissions.KEEP).count() == 3
    with submissions.once(request) as slot:  # a replay: still found, and the rest purged
        assert slot.done_url == "/done/"
    assert set(FormSubmission.objects.values_list("token", flat=True)) == {
        "recent-token-000001",
        "fresh-token-0000001",
    }


def test_l6_a_price_far_from_the_market_of_its_own_currency_needs_confirmation(vendor_a):
    """L6: 0.0001 and 99,999,999.9999 per GPU-hour passed. The top is now the engine's bound
    (a 400 naming the field), and the market check (catalog.plausibility) is the price band per
    currency: it compares with current offers in the quote's own currency, so 400 JPY is
    plausible beside JPY offers while a USD figure typed as JPY (2.50 JPY) is far below them
    (round 4: once a JPY rate exists; without one the price is held), and 0.0001 USD is
    refused unless its author confirms it; nothing is saved when refused."""
    from datetime import timedelta
    from decimal import Decimal

    from django.utils import timezone

    from catalog.errors import CatalogInvalid, UnusualPrice
    from catalog.models import Quote
    from catalog.plausibility import price_check
    from catalog.services import quote_submit
    from tests.factories import AcceleratorFactory, ProviderFactory, QuoteFactory

    h100 = AcceleratorFactory(slug="h100-sxm-80gb", name="H100 SXM 80GB", max_gpus_per_node=8)
    for currency, prices in (("USD", ("2.40", "2.50", "2.60")), ("JPY", ("380", "400", "420"))):
        for price in prices:
            QuoteFactory(
                accelerator=h100,
                provider=ProviderFactory(),
                currency=currency,
                price_per_gpu_hour=Decimal(price),
            )
    before = Quote.objects.count()

    def check(currency: str, price: str):
        return price_check(
            accelerator_id=h100.pk, capacity_model="on_demand", currency=currency, price=price
        )

    # Round 4 (R9): a currency without an FX rate is no longer its own market: it is held.
    assert check("JPY", "400")["held"] == "no_fx_rate"
    from catalog.models import FxRate as Rate

    Rate.objects.create(currency="JPY", rate_to_base=Decimal("0.0067"), as_of=timezone.now().date())
    assert check("JPY", "400") is None  # 2.68 USD
    assert check("USD", "2.50") is None
    typed_as_yen = check("JPY", "2.50")
    assert typed_as_yen is not None
    assert "JPY" in typed_as_yen["message"]
    assert check("USD", "400") is not None
    assert check("USD", "0.0001") is not None

    def submit(price: str) -> Quote:
        data = {
            "accelerator": h100,
            "capacity_model": "on_demand",
            "currency": "USD",
            "price_per_gpu_hour": Decimal(price),
            "gpus_per_node": 8,
            "quoted_at": timezone.now() - timedelta(minutes=5),
        }
        return quote_submit(acting_user=vendor_a, data=data)

    with pytest.raises(UnusualPrice) as unusual:
        submit("0.0001")
    assert "far from the market" in unusual.value.message
    with pytest.raises(CatalogInvalid) as absurd:
        submit("99999999.9999")
    assert "price_per_gpu_hour" in absurd.value.fields
    assert Quote.objects.count() == before

    # No market of its own (a new accelerator, a first quote in a currency): the band in the
    # base currency, converted at the currency's newest FX rate, still applies.
    from datetime import date

    from catalog.models import FxRate

    b200 = AcceleratorFactory(slug="b200", name="B200", max_gpus_per_node=8)
    FxRate.objects.create(currency="EUR", rate_to_base=Decimal("1.08"), as_of=date(2026, 11, 2))

    def lone(currency: str, price: str):
        return price_check(
            accelerator_id=b200.pk, capacity_model="on_demand", currency=currency, price=price
        )

    assert lone("USD", "6.50") is None
    assert lone("EUR", "6.00") is None
    assert "outside every market" in lone("USD", "0.0001")["message"]
    assert "at the newest EUR rate" in lone("EUR", "600")["message"]
    # Round 4 (R9): a currency with no rate used to be "its own market only" and passed.
    assert lone("CHF", "0.0001")["held"] == "no_fx_rate"


def test_l8_a_reviewer_who_entered_an_fx_rate_the_comparison_uses_cannot_approve_it(
    finance, finance_other
):
    """L8: finance entered FX rates and then approved comparisons priced with them. Now the
    person who entered a rate frozen in the comparison is refused the approval with a clear
    message (nothing written, still ready); another finance reviewer approves it."""
    from datetime import date
    from decimal import Decimal

    from catalog.models import FxRate
    from core.errors import NotAllowed
    from procurement.models import Comparison, Review
    from procurement.services.reviews import review_submit
    from tests.reviews.factories_reviews import ready_comparison

    day = date(2026, 11, 2)
    frozen = {"USD": {"rate_to_base": "1", "as_of": day.isoformat()}}
    frozen["JPY"] = {"rate_to_base": "0.00670000", "as_of": day.isoformat()}
    comparison = ready_comparison(snapshot_facts={"base_currency": "USD", "fx_rates": frozen})
    FxRate.objects.create(
        currency="JPY", rate_to_base=Decimal("0.0067"), as_of=day, entered_by=finance
    )
    FxRate.objects.create(  # a later rate by the other reviewer, not in this comparison
        currency="JPY",
        rate_to_base=Decimal("0.0068"),
        as_of=date(2026, 11, 3),
        entered_by=finance_other,
    )

    with pytest.raises(NotAllowed) as refused:
        review_submit(acting_user=finance, comparison=comparison, decision="approve", comment="ok")
    assert "You entered the FX rate this comparison converts prices with" in refused.value.message
    assert "JPY" in refused.value.message
    assert "separation of duties" in refused.value.message
    assert not Review.objects.exists()
    comparison.refresh_from_db()
    assert comparison.status == Comparison.Status.READY

    review_submit(
        acting_user=finance_other, comparison=comparison, decision="approve", comment="ok"
    )
    comparison.refresh_from_db()
    assert comparison.status == Comparison.Status.APPROVED


def test_l5_a_result_measured_on_the_accelerator_says_so_on_another_offers_row():
    """L5 (decision audit D1): a result tied only to an accelerator made every provider's
    quote of it "measured" with nothing on the row telling so. It still counts as measured
    (the decision and its reason: docs/security.md, docs/engine/evidence.md), but its reason
    now says it was not measured on this offer, and the offer's own result is preferred."""
    from engine.evidence import EvidenceTarget, ResultWorkload, choose_evidence
    from procurement.snapshot import thaw
    from tests.engine.snapshot_world import quote, result, snapshot

    target = EvidenceTarget(
        accelerator="h100",
        gpus=4,
        model_name="Llama 3.1 70B",
        precision="bf16",
        input_tokens_mean=1500,
        output_tokens_mean=300,
        concurrency=32,
        quote_id=2,
    )
    shape = {"accelerator": "h100", "model_name": "meta-llama/Llama-3.1-70B-Instruct"}
    shape |= {"precision": "bf16", "gpu_count": 4, "concurrency": 32}
    shape |= {"input_tokens_mean": 1500, "output_tokens_mean": 300}
    lab = ResultWorkload(result_id=1, **shape)
    other_offer = ResultWorkload(result_id=2, quote_id=1, **shape)
    own = ResultWorkload(result_id=3, quote_id=2, **shape)

    best, (lab_v, other_v, own_v) = choose_evidence([lab, other_offer, own], target)
    assert {lab_v.kind, other_v.kind, own_v.kind} == {"measured"}
    assert lab_v.reason.endswith("on this accelerator, not on this offer")
    assert other_v.reason.endswith("on another offer of this accelerator, not on this one")
    assert "not on this" not in own_v.reason
    assert best is not None
    assert best.result_id == 3

    thawed = thaw(snapshot([quote(1, "2.50")], [result(5, "meta-llama/Llama-3.1-70B-Instruct")]))
    evidence = thawed.facts["quote:1"]["performance"]["evidence"]
    assert evidence["kind"] == "measured"
    assert evidence["reason"].endswith("on this accelerator, not on this offer")


@pytest.mark.parametrize("order", ["engineer first", "security first"])
def test_l16_dual_approval_is_order_free_and_needs_both(order, lead, engineer, security, finance):
    """L16 (decided: order-free, docs/security.md): the platform or security approval may come
    before finance's; the comparison is approved only once both are in, never by the first."""
    from decimal import Decimal

    from procurement.models import Comparison
    from procurement.services.reviews import review_submit
    from tests.reviews.factories_reviews import ready_comparison

    comparison = ready_comparison(
        created_by=lead, required_approvals=2, commitment_usd=Decimal("480000.00")
    )
    second_role = engineer if order == "engineer first" else security
    for reviewer in (second_role, finance):
        review_submit(
            acting_user=reviewer,
            comparison=comparison,
            decision="approve",
            comment="Checked the lines.",
        )
        comparison.refresh_from_db()
        if reviewer is second_role:
            assert comparison.status == Comparison.Status.READY  # one of two: not decided
    assert comparison.status == Comparison.Status.APPROVED
    assert comparison.reviews.count() == 2
