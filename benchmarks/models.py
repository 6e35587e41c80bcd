"""Benchmark plans per candidate and uploaded benchmark results (raw file kept for audit)."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.urls import reverse


class Phase(models.IntegerChoices):
    MEMORY_FIT = 1, "Memory fit"
    THROUGHPUT_LATENCY = 2, "Throughput and latency"
    FAILURES_OPERATIONS = 3, "Failures and operations"
    FINANCIAL = 4, "Financial normalisation"


class BenchmarkResult(models.Model):
    """One uploaded result file, its detected format, parse status and normalised metrics."""

    class Status(models.TextChoices):
        PENDING = "pending", "Waiting to be parsed"
        PARSING = "parsing", "Parsing"
        PARSED = "parsed", "Parsed"
        FAILED = "failed", "Failed"

    uploaded_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+"
    )
    quote = models.ForeignKey(
        "catalog.Quote", null=True, blank=True, on_delete=models.PROTECT, related_name="results"
    )
    # A run on GPUs names its accelerator (and GPU count); a run against a hosted model API
    # (an LLMPerf run against an OpenAI-compatible endpoint) names the API route instead: the
    # provider's GPUs are not the buyer's, so it has no accelerator, no GPU count and no
    # per-GPU figure (constraint below).
    accelerator = models.ForeignKey(
        "catalog.Accelerator",
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="results",
    )
    gpu_count = models.PositiveIntegerField(null=True, blank=True)
    api_route = models.ForeignKey(
        "catalog.ModelApiRoute",
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="benchmark_results",
        help_text="The hosted model API measured, for a run against an API (no GPUs).",
    )
    brief = models.ForeignKey(
        "briefs.WorkloadBrief",
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="results",
    )
    phase = models.PositiveSmallIntegerField(
        choices=Phase.choices, default=Phase.THROUGHPUT_LATENCY
    )
    serving_engine = models.CharField(max_length=60, blank=True)
    parallelism = models.CharField(max_length=60, blank=True, help_text="e.g. TP=4, PP=1")
    notes = models.TextField(blank=True)
    # Issue 17: single-point files of one sweep, uploaded under the same name for the same
    # candidate, are read by comparisons as one result with several operating points.
    sweep = models.CharField(max_length=100, blank=True, db_index=True)

    raw_file = models.FileField(upload_to="benchmarks/%Y/%m/")
    original_name = models.CharField(max_length=255)
    sha256 = models.CharField(max_length=64, db_index=True)
    size_bytes = models.BigIntegerField()
    format_id = models.CharField(max_length=40)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PENDING)
    progress = models.FloatField(default=0.0)
    error = models.TextField(blank=True)
    tool_version = models.CharField(max_length=60, blank=True)
    model_name = models.CharField(max_length=200, blank=True)
    # Asked at upload only when the file does not say which model it measured; a file that
    # names its model keeps its own name (the evidence), never a guess.
    model_profile = models.ForeignKey(
        "catalog.ModelProfile",
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="+",
        help_text="The model measured, when the file does not say.",
    )
    metrics = models.JSONField(default=dict, blank=True)
    discrepancies = models.JSONField(default=list, blank=True)
    parse_notes = models.JSONField(default=list, blank=True)
    distributions = models.JSONField(
        default=dict, blank=True, help_text="Histograms of per-request data, for charts."
    )
    created_at = models.DateTimeField(auto_now_add=True)
    parsed_at = models.DateTimeField(null=True, blank=True)
    # The parse's claim (core.jobs): refreshed with each progress write; stale after 30 s.
    claimed_at = models.DateTimeField(null=True, blank=True)
    attempts = models.PositiveIntegerField(default=0)
    # The workload the file measured (blank / null when it does not say): the comparison
    # counts a result as "measured" only when these match the brief (engine/evidence.py).
    precision = models.CharField(max_length=16, blank=True, help_text="e.g. bf16, fp8, int4")
    tensor_parallel = models.PositiveSmallIntegerField(null=True, blank=True)
    pipeline_parallel = models.PositiveSmallIntegerField(null=True, blank=True)
    input_tokens_mean = models.FloatField(null=True, blank=True)
    input_tokens_p95 = models.FloatField(null=True, blank=True)
    output_tokens_mean = models.FloatField(null=True, blank=True)
    output_tokens_p95 = models.FloatField(null=True, blank=True)
    concurrency = models.FloatField(null=True, blank=True)
    request_rate = models.FloatField(null=True, blank=True, help_text="Requests per second.")
    engine_version = models.CharField(max_length=60, blank=True)

    class Meta:
        ordering = ["-created_at"]
        constraints = [
            models.CheckConstraint(
                name="result_on_gpus_or_on_an_api_route",
                condition=(
                    Q(api_route__isnull=True, accelerator__isnull=False, gpu_count__isnull=False)
                    | Q(
                        api_route__isnull=False,
                        accelerator__isnull=True,
                        quote__isnull=True,
                        gpu_count__isnull=True,
                    )
                ),
            )
        ]

    def __str__(self) -> str:
        return f"{self.original_name} ({self.get_status_display()})"

    def get_absolute_url(self) -> str:
        return reverse("benchmarks:result-detail", args=[self.pk])

    @property
    def on_api(self) -> bool:
        """A run against a hosted model API: no GPUs of the buyer's, no per-GPU figures."""
        return self.api_route_id is not None


class BenchmarkPlan(models.Model):
    """The evidence plan for one candidate (a quote) against one brief."""

    quote = models.ForeignKey("catalog.Quote", on_delete=models.PROTECT, related_name="plans")
    brief = models.ForeignKey(
        "briefs.WorkloadBrief", on_delete=models.PROTECT, related_name="plans"
    )
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["quote", "brief"], name="one_plan_per_candidate")
        ]

    def __str__(self) -> str:
        return f"Plan: {self.quote} for {self.brief}"

    def get_absolute_url(self) -> str:
        return reverse("benchmarks:plan-detail", args=[self.pk])


class ComparedCandidate(models.Model):
    """A candidate (quote) that has a row in a finished comparison of a brief.

    The decisions app reports it when a comparison finishes, so a plan's "one row per
    candidate" step can be judged here without reading the decisions app's tables.
    """

    brief = models.ForeignKey("briefs.WorkloadBrief", on_delete=models.CASCADE, related_name="+")
    quote = models.ForeignKey("catalog.Quote", on_delete=models.CASCADE, related_name="+")
    first_compared_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["brief", "quote"], name="one_compared_candidate")
        ]

    def __str__(self) -> str:
        return f"{self.quote} compared for {self.brief}"


class BenchmarkPlanStep(models.Model):
    """A step of a plan with its acceptance criterion; automatic or checked off by hand."""

    class Kind(models.TextChoices):
        AUTOMATIC = "auto", "From uploaded results"
        MANUAL = "manual", "Checked by an engineer"

    class Status(models.TextChoices):
        PENDING = "pending", "Pending"
        PASSED = "passed", "Passed"
        FAILED = "failed", "Failed"

    plan = models.ForeignKey(BenchmarkPlan, on_delete=models.CASCADE, related_name="steps")
    phase = models.PositiveSmallIntegerField(choices=Phase.choices)
    code = models.SlugField(max_length=60)
    title = models.CharField(max_length=200)
    criterion = models.TextField()
    kind = models.CharField(max_length=10, choices=Kind.choices)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PENDING)
    result = models.ForeignKey(
        BenchmarkResult, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    observed = models.CharField(max_length=200, blank=True)
    notes = models.TextField(blank=True)
    evidence_url = models.URLField(max_length=500, blank=True)
    checked_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    checked_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["phase", "id"]
        constraints = [
            models.UniqueConstraint(fields=["plan", "code"], name="plan_step_code_unique")
        ]

    def __str__(self) -> str:
        return self.title


class PublishedResult(models.Model):
    """One published, VALID benchmark result of a public round (MLPerf Inference): the
    public record a comparison may use where the team has no measurement of its own
    (docs/benchmarks.md, "Published results"). One per round, submitter, system, benchmark
    and scenario; its figures are the submission's, never rescaled here."""

    round = models.CharField(max_length=60, help_text="e.g. MLPerf Inference v4.1")
    division = models.CharField(max_length=20, default="closed")
    submitter = models.CharField(max_length=100)
    system = models.CharField(max_length=200, help_text="The system folder's name.")
    system_name = models.CharField(max_length=300, blank=True)
    benchmark = models.CharField(max_length=60, help_text="e.g. llama2-70b-99")
    scenario = models.CharField(max_length=30, help_text="Offline, Server or Interactive")
    model_profile = models.ForeignKey(
        "catalog.ModelProfile", on_delete=models.PROTECT, related_name="+"
    )
    # Identified through the catalog by its name in the systems JSON (refused, never guessed).
    accelerator = models.ForeignKey(
        "catalog.Accelerator", on_delete=models.PROTECT, related_name="published_results"
    )
    accelerator_name = models.CharField(max_length=200, help_text="As the systems JSON names it.")
    accelerators_per_node = models.PositiveIntegerField()
    nodes = models.PositiveIntegerField()
    gpu_count = models.PositiveIntegerField(help_text="Accelerators per node × nodes.")
    throughput = models.FloatField(help_text="The whole system's, in its unit per second.")
    unit = models.CharField(max_length=20, help_text="tokens (output) or samples (images)")
    throughput_per_gpu = models.FloatField()
    samples_per_s = models.FloatField(null=True, blank=True)
    # The scenario's latency limits (Server / Interactive), in milliseconds.
    ttft_limit_ms = models.FloatField(null=True, blank=True)
    tpot_limit_ms = models.FloatField(null=True, blank=True)
    latency_limit_ms = models.FloatField(null=True, blank=True)
    framework = models.CharField(max_length=200, blank=True)
    precision = models.CharField(max_length=16, blank=True, help_text="Blank: not stated.")
    source_path = models.CharField(max_length=500)
    licence = models.CharField(max_length=200)
    imported_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["benchmark", "scenario", "accelerator_id", "-throughput_per_gpu"]
        constraints = [
            models.UniqueConstraint(
                fields=["round", "submitter", "system", "benchmark", "scenario"],
                name="one_published_result_per_submission",
            ),
            models.CheckConstraint(
                name="published_result_gpus_positive",
                condition=Q(gpu_count__gte=1, throughput__gt=0, throughput_per_gpu__gt=0),
            ),
        ]

    def __str__(self) -> str:
        return f"{self.round} · {self.submitter} · {self.system} · {self.benchmark} {self.scenario}"
