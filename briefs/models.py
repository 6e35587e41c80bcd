"""Workload briefs: the written description of the work, filled in before asking for quotes."""

from __future__ import annotations

from decimal import Decimal

from django.conf import settings
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.urls import reverse

from briefs.rules import missing_fields
from core import workloads

FRACTION = [MinValueValidator(0.0), MaxValueValidator(1.0)]
NON_NEGATIVE = [MinValueValidator(0.0)]


# The choices come from the one taxonomy (core.workloads): same values, same labels, same
# order; a test keeps the values and labels equal.
WorkloadClass = models.TextChoices(  # type: ignore[call-overload]  # stubs type the class form only
    "WorkloadClass", [(c.name, (c.value, workloads.label(c))) for c in workloads.WorkloadClass]
)


class Precision(models.TextChoices):
    FP32 = "fp32", "FP32"
    BF16 = "bf16", "BF16"
    FP16 = "fp16", "FP16"
    FP8 = "fp8", "FP8"
    INT8 = "int8", "INT8"
    INT4 = "int4", "INT4"
    FP4 = "fp4", "FP4"


class OperatingModel(models.TextChoices):
    SELF_MANAGED = "self_managed", "We run drivers, CUDA, serving stack and scheduler"
    SHARED = "shared", "Provider runs the platform, we run the serving stack"
    MANAGED = "managed", "Fully managed endpoint or model API"


class BilledTokenType(models.TextChoices):
    """Which tokens a unit cost counts: the team's own bill decides (output by default)."""

    OUTPUT = "output", "Output tokens"
    INPUT = "input", "Input tokens"
    TOTAL = "total", "Input + output tokens"


class WorkloadBrief(models.Model):
    """One version of a workload brief. A revision is a new row pointing to this one."""

    title = models.CharField(max_length=200)
    version = models.PositiveIntegerField(default=1)
    supersedes = models.OneToOneField(
        "self", null=True, blank=True, on_delete=models.PROTECT, related_name="superseded_by"
    )
    workload_class = models.CharField(max_length=30, choices=WorkloadClass.choices)
    description = models.TextField(blank=True)

    model = models.ForeignKey(
        "catalog.ModelProfile", null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    weight_precision = models.CharField(
        max_length=8, choices=Precision.choices, default=Precision.BF16
    )
    kv_precision = models.CharField(max_length=8, choices=Precision.choices, default=Precision.BF16)
    # The engine the team will serve with ("" : not stated, a benchmark of any engine counts).
    # A result of another engine or major version is a proxy (engine/evidence_setup.py), and
    # an engine that caches prefixes lowers GPU rows' prefill (engine/serving_engines.py).
    serving_engine = models.CharField(max_length=60, blank=True)
    serving_engine_version = models.CharField(max_length=40, blank=True)
    context_window_tokens = models.PositiveIntegerField(null=True, blank=True)
    p95_input_tokens = models.PositiveIntegerField(null=True, blank=True)
    p95_output_tokens = models.PositiveIntegerField(null=True, blank=True)
    mean_input_tokens = models.PositiveIntegerField(null=True, blank=True)
    mean_output_tokens = models.PositiveIntegerField(null=True, blank=True)
    streaming = models.BooleanField(default=True)
    concurrency = models.PositiveIntegerField(null=True, blank=True)
    batch_size = models.PositiveIntegerField(null=True, blank=True)
    ttft_p95_ms = models.PositiveIntegerField(null=True, blank=True)
    itl_p95_ms = models.PositiveIntegerField(null=True, blank=True)
    e2e_p99_ms = models.PositiveIntegerField(null=True, blank=True)
    # Optional: a benchmark point whose share of failed requests exceeds it misses the
    # service level, however fast its successful requests were.
    max_error_rate = models.FloatField(null=True, blank=True)  # 0 ≤ x < 1 (briefs.rules)
    # Token classes only: "USD per 1M accepted <this kind of> tokens" everywhere a unit cost
    # is shown, for GPU rows and API routes alike (docs/engine/operating-points.md).
    billed_token_type = models.CharField(
        max_length=10, choices=BilledTokenType.choices, default=BilledTokenType.OUTPUT
    )

    peak_to_average = models.FloatField(default=2.0, validators=[MinValueValidator(1.0)])
    # Uncertain assumptions: low / likely / high (triangular in the Monte Carlo).
    monthly_accepted_outputs_low = models.FloatField(null=True, blank=True, validators=NON_NEGATIVE)
    monthly_accepted_outputs_likely = models.FloatField(
        null=True, blank=True, validators=NON_NEGATIVE
    )
    monthly_accepted_outputs_high = models.FloatField(
        null=True, blank=True, validators=NON_NEGATIVE
    )
    acceptance_rate_low = models.FloatField(null=True, blank=True, validators=FRACTION)
    acceptance_rate_likely = models.FloatField(null=True, blank=True, validators=FRACTION)
    acceptance_rate_high = models.FloatField(null=True, blank=True, validators=FRACTION)
    failure_rate_low = models.FloatField(null=True, blank=True, validators=FRACTION)
    failure_rate_likely = models.FloatField(null=True, blank=True, validators=FRACTION)
    failure_rate_high = models.FloatField(null=True, blank=True, validators=FRACTION)
    utilisation_low = models.FloatField(null=True, blank=True, validators=FRACTION)
    utilisation_likely = models.FloatField(null=True, blank=True, validators=FRACTION)
    utilisation_high = models.FloatField(null=True, blank=True, validators=FRACTION)

    # Training and fine-tuning specifics.
    training_tokens_b = models.FloatField(null=True, blank=True, help_text="Billions of tokens.")
    sequence_length = models.PositiveIntegerField(null=True, blank=True)
    global_batch_tokens = models.PositiveIntegerField(null=True, blank=True)
    optimizer = models.CharField(max_length=40, blank=True, default="adamw")
    sharding = models.CharField(max_length=40, blank=True, default="zero3")
    lora_rank = models.PositiveIntegerField(null=True, blank=True)
    checkpoint_size_gb = models.FloatField(null=True, blank=True)
    checkpoint_interval_min = models.FloatField(null=True, blank=True)
    checkpoint_write_s = models.FloatField(null=True, blank=True)
    restart_time_min = models.FloatField(null=True, blank=True)
    expected_mfu = models.FloatField(null=True, blank=True, validators=FRACTION)
    node_failure_rate_per_day = models.FloatField(null=True, blank=True)
    target_gpus = models.PositiveIntegerField(null=True, blank=True)
    run_success_probability = models.FloatField(null=True, blank=True, validators=FRACTION)

    # Media specifics.
    media_kind = models.CharField(max_length=20, blank=True)
    gpu_seconds_per_asset = models.FloatField(null=True, blank=True)
    moderation_cost_per_asset = models.DecimalField(
        max_digits=10, decimal_places=4, null=True, blank=True
    )
    review_minutes_per_asset = models.FloatField(null=True, blank=True)

    # Data boundary.
    allowed_regions = models.JSONField(default=list, blank=True)
    private_endpoint_required = models.BooleanField(default=False)
    allow_model_substitution = models.BooleanField(
        default=False,
        help_text="A route or offer serving another model may be recommended.",
    )
    residency_notes = models.TextField(blank=True)

    # Operating model and labour.
    operating_model = models.CharField(
        max_length=20, choices=OperatingModel.choices, default=OperatingModel.SELF_MANAGED
    )
    platform_fte = models.FloatField(null=True, blank=True, validators=[MinValueValidator(0.0)])
    loaded_monthly_cost_per_fte = models.DecimalField(
        max_digits=12, decimal_places=2, null=True, blank=True, default=Decimal("18000")
    )
    storage_gb = models.FloatField(null=True, blank=True)
    egress_gb_month = models.FloatField(null=True, blank=True)
    horizon_months = models.PositiveIntegerField(default=12)
    expected_model_churn_months = models.PositiveIntegerField(null=True, blank=True)

    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        # The table predates the briefs app (the decisions app created it); keep its name.
        db_table = "procurement_workloadbrief"
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"{self.title} v{self.version}"

    def get_absolute_url(self) -> str:
        return reverse("briefs:brief-detail", args=[self.pk])

    @property
    def is_serving(self) -> bool:
        return workloads.is_serving(self.workload_class)

    @property
    def is_training(self) -> bool:
        """Training of any kind, whole model or adapters (the engine's reading too)."""
        return workloads.is_training(self.workload_class)

    def missing_fields(self) -> list[str]:
        """Fields the brief needs for its class before a comparison can be run."""

        return missing_fields(self)

    @property
    def is_complete(self) -> bool:
        return not self.missing_fields()


class TrafficTrace(models.Model):
    """A request trace uploaded to a brief: the traffic it sizes from (docs/engine/trace-sizing.md).

    The file is kept as uploaded (its sha256 freezes it into a comparison); the worker reads
    it, and the row holds what the pages and the sizing need to know of it without reading
    it again."""

    class Window(models.TextChoices):
        HOUR = "hour", "A representative hour"
        DAY = "day", "A representative day"
        WEEK = "week", "A representative week"
        PEAK_HOUR = "peak_hour", "The busiest hour"

    class Status(models.TextChoices):
        PENDING = "pending", "Waiting to be read"
        READING = "reading", "Reading"
        READY = "ready", "Ready"
        FAILED = "failed", "Failed"

    brief = models.ForeignKey(WorkloadBrief, on_delete=models.PROTECT, related_name="traces")
    uploaded_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+"
    )
    window = models.CharField(max_length=10, choices=Window.choices)
    raw_file = models.FileField(upload_to="traces/%Y/%m/")
    original_name = models.CharField(max_length=255)
    sha256 = models.CharField(max_length=64, db_index=True)
    size_bytes = models.BigIntegerField()
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PENDING)
    progress = models.FloatField(default=0.0)
    error = models.TextField(blank=True)
    layout = models.CharField(max_length=20, blank=True)
    requests = models.PositiveIntegerField(null=True, blank=True)
    span_s = models.FloatField(null=True, blank=True)
    started_at = models.DateTimeField(null=True, blank=True)
    # Percentiles of the request sizes, the arrivals per minute and their peak-to-average,
    # tenants, the reader's notes: shown as they are, and what replaces the brief's guesses.
    summary = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    read_at = models.DateTimeField(null=True, blank=True)
    claimed_at = models.DateTimeField(null=True, blank=True)
    attempts = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["-created_at"]
        constraints = [
            models.UniqueConstraint(
                fields=["brief", "sha256", "window"], name="trace_once_per_brief_and_window"
            )
        ]

    def __str__(self) -> str:
        return f"{self.original_name} ({self.get_window_display().lower()})"
