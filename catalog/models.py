"""Catalog: accelerators, model profiles, quotes (immutable versions), API routes, FX, RFQs."""

from __future__ import annotations

from datetime import datetime, timedelta
from decimal import Decimal
from typing import TypedDict

from django.conf import settings
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.db.models import Exists, OuterRef, Q
from django.urls import reverse
from django.utils import timezone

from accounts.models import Provider
from catalog.choices import CapacityModel as CapacityModel
from catalog.choices import PriceUnit as PriceUnit
from catalog.choices import PrivateEndpoint as PrivateEndpoint


class _Money(TypedDict):
    max_digits: int
    decimal_places: int


MONEY: _Money = {"max_digits": 14, "decimal_places": 4}
# Token prices per million tokens are stored as published: LiteLLM's per-token prices × 10⁶
# need up to 8 decimals (0.0046875 $/1M), which 4 places would round.
TOKEN_MONEY: _Money = {"max_digits": 18, "decimal_places": 8}
POSITIVE = [MinValueValidator(Decimal("0"))]


class Accelerator(models.Model):
    """A GPU or AI accelerator with datasheet figures (dense tensor figures, GB = 10^9 bytes)."""

    class Segment(models.TextChoices):
        DATACENTER = "datacenter", "Datacenter"
        WORKSTATION = "workstation", "Workstation"
        CONSUMER = "consumer", "Consumer"

    slug = models.SlugField(max_length=80, unique=True)
    vendor = models.CharField(max_length=40)
    name = models.CharField(max_length=120)
    architecture = models.CharField(max_length=60)
    form_factor = models.CharField(max_length=60)
    memory_gb = models.FloatField()
    memory_type = models.CharField(max_length=20)
    memory_bandwidth_tbps = models.FloatField()
    bf16_dense_tflops = models.FloatField()
    fp8_dense_tflops = models.FloatField(null=True, blank=True)
    fp4_dense_tflops = models.FloatField(null=True, blank=True)
    int8_dense_tops = models.FloatField(null=True, blank=True)
    supported_precisions = models.JSONField(default=list)
    interconnect = models.CharField(max_length=80)
    interconnect_gbps = models.FloatField(null=True, blank=True)
    pcie_gen = models.PositiveSmallIntegerField(null=True, blank=True)
    tdp_w = models.PositiveIntegerField(null=True, blank=True)
    mig_instances = models.PositiveSmallIntegerField(default=0)
    launch_year = models.PositiveSmallIntegerField(null=True, blank=True)
    segment = models.CharField(max_length=20, choices=Segment.choices)
    max_gpus_per_node = models.PositiveSmallIntegerField(default=8)
    source_url = models.URLField(max_length=500)
    verified_on = models.DateField(null=True, blank=True)
    notes = models.TextField(blank=True)
    # The catalog page's price column, set by selectors.with_current_prices (not stored).
    lowest_usd_per_gpu_hour: Decimal | None
    usd_offers: int | None

    class Meta:
        ordering = ["vendor", "name"]

    def __str__(self) -> str:
        return self.name

    def get_absolute_url(self) -> str:
        return reverse("catalog:accelerator-detail", args=[self.slug])


class ModelProfile(models.Model):
    """An AI model's architecture numbers, as memory sizing needs them."""

    slug = models.SlugField(max_length=80, unique=True)
    name = models.CharField(max_length=120)
    family = models.CharField(max_length=60, blank=True)
    params_total_b = models.FloatField(validators=[MinValueValidator(0.001)])
    params_active_b = models.FloatField(validators=[MinValueValidator(0.001)])
    layers = models.PositiveIntegerField()
    hidden_size = models.PositiveIntegerField(null=True, blank=True)
    attention_heads = models.PositiveIntegerField(null=True, blank=True)
    kv_heads = models.PositiveIntegerField()
    head_dim = models.PositiveIntegerField()
    mla_latent_dim = models.PositiveIntegerField(null=True, blank=True)
    sliding_window = models.PositiveIntegerField(null=True, blank=True)
    sliding_window_layers = models.PositiveIntegerField(default=0)
    max_context = models.PositiveIntegerField(null=True, blank=True)
    # M-1: a quantised checkpoint keeps the embeddings and the output head in 16 bits; their
    # size is vocab × hidden (twice unless tied). Blank: the memory fit says it is not counted.
    vocab_size = models.PositiveIntegerField(null=True, blank=True)
    tied_embeddings = models.BooleanField(
        default=False, help_text="The output head shares the embedding matrix."
    )
    license = models.CharField(max_length=80, blank=True)
    published_precision = models.CharField(
        max_length=8,
        blank=True,
        help_text="The precision the published weights are stored in (config.json's "
        "torch_dtype or quantization_config), which a server's dtype 'auto' runs them at. "
        "Blank: not recorded.",
    )
    source_url = models.URLField(max_length=500, blank=True)
    notes = models.TextField(blank=True)
    # An upload binds a file's model name to the profile by these (catalog/model_names.py).
    aliases = models.JSONField(
        default=list,
        blank=True,
        help_text="Other names of this model: Hugging Face ids, Ollama or LiteLLM names.",
    )
    is_custom = models.BooleanField(default=False)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL
    )

    class Meta:
        ordering = ["family", "name"]

    def __str__(self) -> str:
        return self.name


ELASTIC_CAPACITY = {CapacityModel.ON_DEMAND, CapacityModel.SPOT, CapacityModel.MARKETPLACE}


class QuoteQuerySet(models.QuerySet["Quote"]):
    def current(self) -> QuoteQuerySet:
        """Latest version of each quote lineage (nothing supersedes it), not withdrawn.

        NOT EXISTS rather than ``superseded_by__isnull``: PostgreSQL estimates the LEFT JOIN …
        IS NULL form at one row and then nests every later join in loops (the quotes page
        took 0.3 s at 10,000 quotes); an anti-join is estimated right."""
        later = Quote.objects.filter(supersedes=OuterRef("pk"))
        return self.filter(~Exists(later)).exclude(status=Quote.Status.WITHDRAWN)

    def stale(self, *, now: datetime | None = None) -> QuoteQuerySet:
        now = now or timezone.now()
        cutoff = now - timedelta(days=settings.STALE_QUOTE_DAYS)
        return self.filter(Q(quoted_at__lt=cutoff) | Q(valid_until__lt=now))


class Quote(models.Model):
    """One immutable version of a provider's priced GPU offer; a revision is a new row."""

    class Status(models.TextChoices):
        SUBMITTED = "submitted", "Submitted"
        WITHDRAWN = "withdrawn", "Withdrawn"

    provider = models.ForeignKey(Provider, on_delete=models.PROTECT, related_name="quotes")
    accelerator = models.ForeignKey(Accelerator, on_delete=models.PROTECT, related_name="quotes")
    rfq = models.ForeignKey(
        "catalog.Rfq", null=True, blank=True, on_delete=models.PROTECT, related_name="quotes"
    )
    title = models.CharField(max_length=200, blank=True)
    version = models.PositiveIntegerField(default=1)
    supersedes = models.OneToOneField(
        "self", null=True, blank=True, on_delete=models.PROTECT, related_name="superseded_by"
    )
    status = models.CharField(max_length=20, choices=Status.choices, default=Status.SUBMITTED)
    is_public_list_price = models.BooleanField(default=False)

    capacity_model = models.CharField(max_length=30, choices=CapacityModel.choices)
    currency = models.CharField(max_length=3, default="USD")
    # Always per GPU-hour (what the comparison and the plausibility check read); a price
    # per node- or instance-hour is kept as quoted beside it and converted on save.
    price_per_gpu_hour = models.DecimalField(**MONEY, null=True, blank=True, validators=POSITIVE)
    price_unit = models.CharField(
        max_length=20, choices=PriceUnit.choices, default=PriceUnit.GPU_HOUR
    )
    price_as_quoted = models.DecimalField(**MONEY, null=True, blank=True, validators=POSITIVE)
    gpus_per_priced_unit = models.PositiveSmallIntegerField(null=True, blank=True)
    # Purchase quotes: capex per node, support per year, power, amortisation.
    price_per_node = models.DecimalField(**MONEY, null=True, blank=True, validators=POSITIVE)
    support_per_year = models.DecimalField(**MONEY, null=True, blank=True, validators=POSITIVE)
    power_kw_per_node = models.DecimalField(max_digits=8, decimal_places=3, null=True, blank=True)
    amortisation_months = models.PositiveIntegerField(null=True, blank=True)

    gpus_per_node = models.PositiveSmallIntegerField(default=8)
    max_gpus_available = models.PositiveIntegerField(null=True, blank=True)
    # When the capacity can be delivered: a fleet is only there from this date, after this
    # lead time from the order (both optional: not stated).
    capacity_available_from = models.DateTimeField(null=True, blank=True)
    capacity_lead_time_days = models.PositiveIntegerField(null=True, blank=True)
    vcpu_per_node = models.PositiveIntegerField(null=True, blank=True)
    ram_gb_per_node = models.PositiveIntegerField(null=True, blank=True)
    local_nvme_tb_per_node = models.DecimalField(
        max_digits=8, decimal_places=2, null=True, blank=True
    )
    intra_node_interconnect = models.CharField(max_length=80, blank=True)
    inter_node_fabric = models.CharField(max_length=80, blank=True)
    inter_node_bandwidth_gbps = models.PositiveIntegerField(null=True, blank=True)
    region = models.CharField(max_length=60, blank=True)
    zone = models.CharField(max_length=60, blank=True)
    zones = models.JSONField(
        default=list,
        blank=True,
        help_text="Every zone the same price holds in (an imported list collapses zones).",
    )
    placement = models.CharField(max_length=200, blank=True)
    private_endpoint = models.CharField(
        max_length=10,
        choices=PrivateEndpoint.choices,
        default=PrivateEndpoint.UNKNOWN,
        help_text="Private link / VPC peering to the GPUs. Not stated: a brief that requires "
        "a private endpoint finds the offer ineligible until it is stated.",
    )

    min_commitment_gpus = models.PositiveIntegerField(default=0)
    term_months = models.PositiveIntegerField(default=0)
    cancellation_terms = models.TextField(blank=True)
    overage_rate_per_gpu_hour = models.DecimalField(**MONEY, null=True, blank=True)
    storage_per_gb_month = models.DecimalField(**MONEY, null=True, blank=True)
    egress_per_gb = models.DecimalField(**MONEY, null=True, blank=True)
    snapshot_per_gb_month = models.DecimalField(**MONEY, null=True, blank=True)
    public_ip_per_month = models.DecimalField(**MONEY, null=True, blank=True)
    load_balancer_per_month = models.DecimalField(**MONEY, null=True, blank=True)
    private_networking_per_month = models.DecimalField(**MONEY, null=True, blank=True)
    idle_billed = models.BooleanField(default=True)
    shutdown_automation = models.CharField(max_length=200, blank=True)
    usage_export_format = models.CharField(max_length=120, blank=True)
    invoice_granularity = models.CharField(max_length=60, blank=True)
    support_tier = models.CharField(max_length=120, blank=True)

    quoted_at = models.DateTimeField(help_text="When the price was captured.")
    valid_until = models.DateTimeField(null=True, blank=True)
    source_url = models.URLField(max_length=500, blank=True)
    source_document = models.CharField(max_length=200, blank=True)
    list_key = models.CharField(
        max_length=300,
        blank=True,
        db_index=True,
        help_text="An imported list price's offer identity (provider, instance type, region, "
        "capacity model): a re-import revises the quote with the same key.",
    )
    notes = models.TextField(blank=True)
    price_far_from_market = models.BooleanField(
        default=False,
        help_text="The price was far from the market when entered and its author confirmed it.",
    )
    price_check = models.JSONField(
        default=dict,
        blank=True,
        help_text="The plausibility check's figures when flagged: median, ratio, list range, "
        "message, and who confirmed (vendor or staff).",
    )
    entered_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.PROTECT, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    objects = QuoteQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at"]
        indexes = [models.Index(fields=["provider", "accelerator", "capacity_model"])]
        constraints = [
            models.CheckConstraint(
                name="quote_price_positive",
                condition=Q(price_per_gpu_hour__isnull=True) | Q(price_per_gpu_hour__gt=0),
            ),
            models.CheckConstraint(
                name="quote_valid_after_quoted",
                condition=Q(valid_until__isnull=True) | Q(valid_until__gte=models.F("quoted_at")),
            ),
        ]

    def __str__(self) -> str:
        label = self.title or f"{self.accelerator} {self.get_capacity_model_display()}"
        return f"{self.provider}: {label} v{self.version}"

    def get_absolute_url(self) -> str:
        return reverse("catalog:quote-detail", args=[self.pk])

    def is_stale(self, now: datetime | None = None) -> bool:
        now = now or timezone.now()
        cutoff = now - timedelta(days=settings.STALE_QUOTE_DAYS)
        return self.quoted_at < cutoff or (self.valid_until is not None and self.valid_until < now)


class ModelApiRoute(models.Model):
    """A model API offered as a candidate instead of renting GPUs."""

    provider = models.ForeignKey(Provider, on_delete=models.PROTECT, related_name="api_routes")
    model_name = models.CharField(max_length=200)
    model_profile = models.ForeignKey(
        ModelProfile, null=True, blank=True, on_delete=models.SET_NULL, related_name="api_routes"
    )
    publisher = models.CharField(
        max_length=80,
        blank=True,
        help_text="Who publishes the model when the provider resells it (Anthropic for Claude "
        "on Google Cloud Vertex AI). Blank: the provider's own model or not stated.",
    )
    currency = models.CharField(max_length=3, default="USD")
    price_input_per_m_tokens = models.DecimalField(**TOKEN_MONEY, validators=POSITIVE)
    price_output_per_m_tokens = models.DecimalField(**TOKEN_MONEY, validators=POSITIVE)
    price_cached_input_per_m_tokens = models.DecimalField(
        **TOKEN_MONEY, null=True, blank=True, validators=POSITIVE
    )
    price_tiers = models.JSONField(
        default=dict,
        blank=True,
        help_text="Priced variants per million tokens: batch, priority, flex, long context "
        "(`above_input_tokens`) and cache writes, as the public price file lists them.",
    )
    max_input_tokens = models.PositiveIntegerField(null=True, blank=True)
    rate_limit_rpm = models.PositiveIntegerField(null=True, blank=True)
    rate_limit_tpm = models.PositiveIntegerField(null=True, blank=True)
    failed_attempts_billed = models.DecimalField(
        max_digits=4,
        decimal_places=3,
        null=True,
        blank=True,
        validators=[MinValueValidator(Decimal("0")), MaxValueValidator(Decimal("1"))],
        help_text="Share of failed attempts (errors, timeouts) the provider bills: 0 none, "
        "1 all. Blank: not stated, so the brief's assumption applies.",
    )
    region = models.CharField(max_length=60, blank=True)
    processing_regions = models.JSONField(
        default=list,
        blank=True,
        help_text="Where the provider processes requests: region codes or geographies "
        "(EU, US, eu-west-1). Empty: not stated, so a brief's data boundary is not met.",
    )
    private_endpoint = models.CharField(
        max_length=10,
        choices=PrivateEndpoint.choices,
        default=PrivateEndpoint.UNKNOWN,
        help_text="Private link / VPC peering to the API, without the public internet. Not "
        "stated: a brief that requires a private endpoint finds the route ineligible.",
    )
    p95_ttft_ms = models.FloatField(null=True, blank=True)
    p99_e2e_ms = models.FloatField(null=True, blank=True)
    is_public_list_price = models.BooleanField(default=False)
    is_active = models.BooleanField(default=True)
    quoted_at = models.DateTimeField()
    valid_until = models.DateTimeField(null=True, blank=True)
    source_url = models.URLField(max_length=500, blank=True)
    entered_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.PROTECT, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["provider__name", "model_name"]

    def __str__(self) -> str:
        return f"{self.provider}: {self.model_name} (API)"

    def is_stale(self, now: datetime | None = None) -> bool:
        now = now or timezone.now()
        cutoff = now - timedelta(days=settings.STALE_QUOTE_DAYS)
        return self.quoted_at < cutoff


class FxRate(models.Model):
    """How many units of the base currency one unit of `currency` buys, as of a date."""

    currency = models.CharField(max_length=3)
    rate_to_base = models.DecimalField(max_digits=18, decimal_places=8, validators=POSITIVE)
    as_of = models.DateField()
    entered_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.PROTECT, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["currency", "-as_of"]
        constraints = [
            models.UniqueConstraint(fields=["currency", "as_of"], name="fx_unique_per_day"),
            models.CheckConstraint(name="fx_rate_positive", condition=Q(rate_to_base__gt=0)),
        ]

    def __str__(self) -> str:
        return f"1 {self.currency} = {self.rate_to_base} ({self.as_of})"


class Rfq(models.Model):
    """A request for quotes: a brief's requirements sent to chosen providers, with a deadline."""

    class Status(models.TextChoices):
        OPEN = "open", "Open"
        CLOSED = "closed", "Closed"

    title = models.CharField(max_length=200)
    brief = models.ForeignKey(
        "briefs.WorkloadBrief",
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="rfqs",
    )
    requirements = models.TextField(blank=True)
    accelerators = models.ManyToManyField(Accelerator, blank=True, related_name="rfqs")
    gpus_needed = models.PositiveIntegerField(null=True, blank=True)
    region = models.CharField(max_length=120, blank=True)
    capacity_models = models.JSONField(default=list, blank=True)
    term_months = models.PositiveIntegerField(null=True, blank=True)
    deadline = models.DateTimeField()
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.OPEN)
    providers = models.ManyToManyField(Provider, related_name="rfqs")
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    reopened_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]
        verbose_name = "RFQ"

    def __str__(self) -> str:
        return self.title

    def get_absolute_url(self) -> str:
        return reverse("catalog:rfq-detail", args=[self.pk])

    def is_open_for_answers(self, now: datetime | None = None) -> bool:
        now = now or timezone.now()
        return self.status == self.Status.OPEN and self.deadline >= now

    def capacity_model_labels(self) -> list[str]:
        """ "On-demand", not "on_demand": staff and vendor pages say it the same way."""
        known = dict(CapacityModel.choices)
        return [str(known.get(code, code)) for code in self.capacity_models or []]


class CatalogImportJob(models.Model):
    """A price file imported by a worker (large files), with its progress and outcome."""

    class Status(models.TextChoices):
        QUEUED = "queued", "Queued"
        RUNNING = "running", "Running"
        DONE = "done", "Done"
        FAILED = "failed", "Failed"

    kind = models.CharField(max_length=20)
    filename = models.CharField(max_length=200)
    data = models.BinaryField(help_text="The file, kept until the import has run.")
    captured_on = models.DateField()
    provider = models.ForeignKey(Provider, null=True, blank=True, on_delete=models.PROTECT)
    only_providers = models.JSONField(default=list, blank=True)  # provider slugs
    all_or_nothing = models.BooleanField(null=True, blank=True)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.QUEUED)
    progress = models.FloatField(default=0)
    stage = models.CharField(max_length=120, blank=True)
    outcome = models.JSONField(default=dict, blank=True)
    errors = models.JSONField(default=list, blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"Import of {self.filename} ({self.get_status_display()})"

    def get_absolute_url(self) -> str:
        return reverse("catalog:import-job", args=[self.pk])


# The calibration ledger lives in its own module (registered with this app from here).
from catalog.ledger import CalibrationEntry as CalibrationEntry  # noqa: E402
