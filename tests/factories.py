"""One factory per model; Sequence slugs; SubFactory for foreign keys."""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal

import factory
from django.utils import timezone
from factory.django import DjangoModelFactory

from accounts.models import Provider, User
from briefs.models import WorkloadBrief
from catalog.models import Accelerator, FxRate, ModelApiRoute, ModelProfile, Quote, Rfq
from core.roles import Role
from procurement.models import Comparison


class ProviderFactory(DjangoModelFactory[Provider]):
    class Meta:
        model = Provider
        django_get_or_create = ("slug",)

    name = factory.Sequence(lambda n: f"Provider {n}")
    slug = factory.Sequence(lambda n: f"provider-{n}")


class UserFactory(DjangoModelFactory[User]):
    class Meta:
        model = User
        django_get_or_create = ("username",)
        skip_postgeneration_save = True

    username = factory.Sequence(lambda n: f"user{n}")
    email = factory.LazyAttribute(lambda u: f"{u.username}@example.com")
    role = Role.PROCUREMENT_LEAD
    password = factory.PostGenerationMethodCall("set_password", "gpu-demo")

    @factory.post_generation
    def _save(obj, create, extracted, **kwargs):
        if create:
            obj.save()


class AcceleratorFactory(DjangoModelFactory[Accelerator]):
    class Meta:
        model = Accelerator
        django_get_or_create = ("slug",)

    slug = factory.Sequence(lambda n: f"gpu-{n}")
    vendor = "NVIDIA"
    name = factory.Sequence(lambda n: f"GPU {n}")
    architecture = "Hopper"
    form_factor = "SXM"
    memory_gb = 80.0
    memory_type = "HBM3"
    memory_bandwidth_tbps = 3.35
    bf16_dense_tflops = 989.0
    fp8_dense_tflops = 1979.0
    supported_precisions = ["fp32", "bf16", "fp16", "fp8", "int8"]
    interconnect = "NVLink 4"
    interconnect_gbps = 900.0
    pcie_gen = 5
    tdp_w = 700
    segment = Accelerator.Segment.DATACENTER
    max_gpus_per_node = 8
    source_url = "https://www.nvidia.com/en-us/data-center/h100/"


class ModelProfileFactory(DjangoModelFactory[ModelProfile]):
    class Meta:
        model = ModelProfile
        django_get_or_create = ("slug",)

    slug = "llama-3-1-70b"
    name = "Llama 3.1 70B"
    family = "Llama"
    params_total_b = 70.6
    params_active_b = 70.6
    layers = 80
    hidden_size = 8192
    attention_heads = 64
    kv_heads = 8
    head_dim = 128
    max_context = 131072


class QuoteFactory(DjangoModelFactory[Quote]):
    class Meta:
        model = Quote

    provider = factory.SubFactory(ProviderFactory)
    accelerator = factory.SubFactory(AcceleratorFactory)
    capacity_model = "on_demand"
    currency = "USD"
    price_per_gpu_hour = Decimal("2.4900")
    gpus_per_node = 8
    region = "eu-west"
    quoted_at = factory.LazyFunction(lambda: timezone.now() - timedelta(days=1))
    valid_until = factory.LazyFunction(lambda: timezone.now() + timedelta(days=60))
    source_url = "https://example.com/price-list"


class ModelApiRouteFactory(DjangoModelFactory[ModelApiRoute]):
    class Meta:
        model = ModelApiRoute

    provider = factory.SubFactory(ProviderFactory)
    model_name = "llama-3.1-70b-instruct"
    price_input_per_m_tokens = Decimal("0.60")
    price_output_per_m_tokens = Decimal("0.80")
    quoted_at = factory.LazyFunction(lambda: timezone.now() - timedelta(days=2))


class FxRateFactory(DjangoModelFactory[FxRate]):
    class Meta:
        model = FxRate

    currency = "EUR"
    rate_to_base = Decimal("1.08")
    as_of = factory.LazyFunction(lambda: timezone.now().date())


class WorkloadBriefFactory(DjangoModelFactory[WorkloadBrief]):
    """A complete real-time inference brief (Llama 3.1 70B, chat)."""

    class Meta:
        model = WorkloadBrief

    title = factory.Sequence(lambda n: f"Support chat assistant {n}")
    workload_class = "realtime_inference"
    model = factory.SubFactory(ModelProfileFactory)
    weight_precision = "bf16"
    kv_precision = "bf16"
    context_window_tokens = 8192
    p95_input_tokens = 3000
    p95_output_tokens = 500
    mean_input_tokens = 1500
    mean_output_tokens = 300
    concurrency = 32
    ttft_p95_ms = 800
    itl_p95_ms = 60
    e2e_p99_ms = 20000
    peak_to_average = 2.0
    monthly_accepted_outputs_low = 2_000_000
    monthly_accepted_outputs_likely = 3_000_000
    monthly_accepted_outputs_high = 5_000_000
    acceptance_rate_low = 0.85
    acceptance_rate_likely = 0.92
    acceptance_rate_high = 0.97
    failure_rate_low = 0.005
    failure_rate_likely = 0.01
    failure_rate_high = 0.03
    utilisation_low = 0.35
    utilisation_likely = 0.55
    utilisation_high = 0.75
    operating_model = "self_managed"
    platform_fte = 0.5
    loaded_monthly_cost_per_fte = Decimal("18000")
    storage_gb = 500
    egress_gb_month = 200
    horizon_months = 12
    expected_model_churn_months = 9
    allowed_regions = ["eu-west", "eu-central"]
    created_by = factory.SubFactory(UserFactory, role=Role.PROCUREMENT_LEAD)


class RfqFactory(DjangoModelFactory[Rfq]):
    class Meta:
        model = Rfq
        skip_postgeneration_save = True

    title = factory.Sequence(lambda n: f"RFQ {n}")
    deadline = factory.LazyFunction(lambda: timezone.now() + timedelta(days=14))
    created_by = factory.SubFactory(UserFactory, role=Role.PROCUREMENT_LEAD)

    @factory.post_generation
    def providers(obj, create, extracted, **kwargs):
        if create and extracted:
            obj.providers.set(extracted)


class ComparisonFactory(DjangoModelFactory[Comparison]):
    class Meta:
        model = Comparison

    title = factory.Sequence(lambda n: f"Comparison {n}")
    brief = factory.SubFactory(WorkloadBriefFactory)
    seed = 12345
    created_by = factory.SubFactory(UserFactory, role=Role.PROCUREMENT_LEAD)
