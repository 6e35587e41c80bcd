"""The security area's world: the cast, and one object of each kind owned by provider A.

The users are the suite's one cast (`tests/support/cast.py`). Built once per module (see
`world` in tests/security/conftest.py) inside a transaction that is rolled back at the end,
so it costs one build for hundreds of requests.
"""

from __future__ import annotations

import hashlib
import importlib
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from django.apps import apps
from django.core.files.base import ContentFile
from django.utils import timezone

from benchmarks.models import BenchmarkPlanStep, BenchmarkResult
from catalog.models import CatalogImportJob
from checklist.models import ChecklistAnswer, ChecklistItem
from core.audit import audit_record
from core.roles import Role
from procurement.models import CandidateResult, Comparison, Review
from tests.factories import (
    AcceleratorFactory,
    ComparisonFactory,
    FxRateFactory,
    ModelApiRouteFactory,
    ModelProfileFactory,
    QuoteFactory,
    RfqFactory,
    WorkloadBriefFactory,
)
from tests.support.cast import build_cast

PASSWORD = "gpu-demo"  # the factories' password
# The matrix's columns, in order. "vendor_b" is a vendor of provider B looking at A's objects.
ROLES = (
    "anonymous",
    "vendor_a",
    "vendor_b",
    "lead",
    "engineer",
    "finance",
    "security",
    "admin_member",
)
STAFF = ("lead", "engineer", "finance", "security", "admin_member")
EVIDENCE_BYTES = b"%PDF-1.7\n1 0 obj << /Type /Catalog >> endobj\ntrailer << >>\n%%EOF\n"
RAW_RESULT_BYTES = b'{"demo": true}'
EVIDENCE_NAME = 'A "spec"\r\nsheet ../é.pdf'  # hostile on purpose: the download must tame it
# Text only provider A's objects carry: no page vendor B may read contains it.
MARKERS = ("ZQXA", "zqxa", "Provider A", "provider-a")
RAW_RESULT_NAME = 'run "1"\r\n;é.json'


@dataclass
class World:
    users: dict[str, Any]
    ids: dict[str, Any]
    objects: dict[str, Any] = field(default_factory=dict)
    clients: dict[str, Any] = field(default_factory=dict)

    def kwargs(self, spec: dict[str, str]) -> dict[str, Any]:
        """URL kwargs from a route's spec: {"pk": "quote"} → {"pk": <id of the quote>}."""
        return {name: self.ids[key] for name, key in spec.items()}


def _seed_checklist_items() -> None:
    """The 20 items come from a data migration; a transactional test elsewhere may flush them."""
    seed = importlib.import_module("checklist.migrations.0002_seed_items")
    if ChecklistItem.objects.count() != len(seed.ITEMS):
        seed.seed_items(apps, None)


def _comparison(users: dict[str, Any], brief: Any, quote: Any) -> tuple[Comparison, Review]:
    """A ready comparison by `lead` needing two approvals; finance2 has given the first one."""
    comparison = ComparisonFactory(
        title="ZQXA comparison",
        brief=brief,
        created_by=users["lead"],
        status=Comparison.Status.READY,
        required_approvals=2,
        commitment_usd=Decimal("480000.00"),
        engine_version="1.0.0",
        recommended_key="q-a",
        result={"unit_label": "per 1M accepted output tokens"},
        snapshot={"selection": {"default": True}},
    )
    comparison.quotes.set([quote])
    candidate = CandidateResult.objects.create(
        comparison=comparison,
        key="q-a",
        kind=CandidateResult.Kind.GPU,
        quote=quote,
        label=str(quote),
        provider_name=quote.provider.name,
        accelerator_name=quote.accelerator.name,
        capacity_model=quote.capacity_model,
        gpus=8,
        hourly_price_usd=Decimal("2.4900"),
        eligible=True,
        cost_lines={"gpu_compute": "10000.10", "storage": "250.20", "platform_labor": "9000.03"},
        total_usd=Decimal("19250.33"),
        accepted_outputs=Decimal("3000000.0000"),
        unit_cost_usd=Decimal("6.416777"),
        unit_label="per 1M accepted output tokens",
        p10=5.5,
        p50=6.4,
        p90=7.9,
        prob_cheapest=1.0,
        rank=1,
        rank_hourly=1,
        perf_source="estimated",
        fit={"fits": True, "gpus_required": 2, "headroom_pct": 22.5},
        performance={"tokens_per_s": 2400.0, "throughput_source": "estimated"},
        checklist={"required_level": "full", "completeness_pct": 5, "missing_items": []},
        warnings=[],
    )
    review = Review.objects.create(
        comparison=comparison,
        comparison_creator=users["lead"],
        reviewer=users["finance_other"],
        reviewer_role=Role.FINANCE_REVIEWER,
        decision=Review.Decision.APPROVE,
        candidate=candidate,
        comment="Checked the cost lines.",
    )
    return comparison, review


def build_world() -> World:
    """Provider A's objects (with the cast); every id the URL kwargs may need."""
    from benchmarks.services import benchmark_plan_create

    _seed_checklist_items()
    users = build_cast()  # the one cast (tests/support/cast.py)
    accelerator = AcceleratorFactory(slug="h100-sxm-80gb", name="H100 SXM 80GB")
    model = ModelProfileFactory()
    brief = WorkloadBriefFactory(created_by=users["lead"], model=model, title="ZQXA brief")
    rfq = RfqFactory(
        title="ZQXA RFQ to A", providers=[users["provider_a"]], created_by=users["lead"]
    )
    quote = QuoteFactory(
        provider=users["provider_a"],
        accelerator=accelerator,
        rfq=rfq,
        capacity_model="reserved",
        term_months=12,
        entered_by=users["vendor_a"],
        title="ZQXA H100 reserved",
    )
    answer = ChecklistAnswer(
        provider=users["provider_a"],
        quote=quote,
        item=ChecklistItem.objects.order_by("order").first(),
        answer="ZQXA 8x H100 SXM per node",
        status=ChecklistAnswer.Status.YES,
        evidence_name=EVIDENCE_NAME,
        answered_by=users["vendor_a"],
    )
    answer.evidence_file.save("evidence.pdf", ContentFile(EVIDENCE_BYTES), save=False)
    answer.save()
    route = ModelApiRouteFactory(provider=users["provider_a"], model_name="zqxa-llama-70b")
    fx = FxRateFactory()
    result = _result(users["engineer"], accelerator, quote, brief)
    plan, _ = benchmark_plan_create(acting_user=users["engineer"], quote=quote, brief=brief)
    step = plan.steps.filter(kind=BenchmarkPlanStep.Kind.MANUAL).first()
    comparison, review = _comparison(users, brief, quote)
    event = audit_record(actor=users["vendor_a"], action="security.matrix", obj=quote)
    import_job = CatalogImportJob.objects.create(
        kind="litellm",
        filename="prices.json",
        data=b"{}",
        captured_on=brief.created_at.date(),
        created_by=users["lead"],
    )
    ids = {
        "accelerator": accelerator.slug,
        "model": model.slug,
        "brief": brief.pk,
        "rfq": rfq.pk,
        "quote": quote.pk,
        "answer": answer.pk,
        "section": "hardware",  # a checklist section, for the section-wide accept
        "provider": users["provider_a"].pk,
        "route": route.pk,
        "fx": fx.pk,
        "result": result.pk,
        "plan": plan.pk,
        "step": step.pk,
        "comparison": comparison.pk,
        "review": review.pk,
        "event": event.pk,
        "member": users["engineer"].pk,
        "import_job": import_job.pk,
        "file_template": "requests_template.csv",
    }
    objects = {
        "quote": quote,
        "answer": answer,
        "result": result,
        "comparison": comparison,
        "brief": brief,
        "rfq": rfq,
        "route": route,
        "accelerator": accelerator,
    }
    return World(users=users, ids=ids, objects=objects)


def _result(uploader: Any, accelerator: Any, quote: Any, brief: Any) -> BenchmarkResult:
    """A parsed result row (no parser run) whose raw file is stored like an upload's."""
    result = BenchmarkResult(
        uploaded_by=uploader,
        accelerator=accelerator,
        quote=quote,
        brief=brief,
        gpu_count=8,
        original_name=RAW_RESULT_NAME,
        sha256=hashlib.sha256(RAW_RESULT_BYTES).hexdigest(),
        size_bytes=len(RAW_RESULT_BYTES),
        format_id="vllm-serve",
        status=BenchmarkResult.Status.PARSED,
        progress=1.0,
        metrics={"requests_completed": 10, "output_tokens_per_s": 2400.0},
        parsed_at=timezone.now(),
    )
    result.raw_file.save("raw.json", ContentFile(RAW_RESULT_BYTES), save=False)
    result.save()
    return result
