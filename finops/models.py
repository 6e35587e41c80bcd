"""Billing imports, actual accepted outputs, and the monthly reconciliation of a decision."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from django.conf import settings
from django.db import models
from django.db.models import Q

MONEY: dict[str, Any] = {"max_digits": 20, "decimal_places": 6}
RATIO: dict[str, Any] = {"max_digits": 30, "decimal_places": 12}


class BillingImport(models.Model):
    """One FOCUS cost-and-usage file imported for one month of an approved decision.

    The file is kept as uploaded; a worker reads it and writes the totals below in one
    transaction, or marks the import FAILED with the reason (nothing half-imported)."""

    class Status(models.TextChoices):
        PENDING = "pending", "Waiting for a worker"
        RUNNING = "running", "Reading"
        DONE = "done", "Imported"
        FAILED = "failed", "Refused"

    comparison = models.ForeignKey(
        "procurement.Comparison", on_delete=models.PROTECT, related_name="billing_imports"
    )
    month = models.DateField(help_text="First day of the billing month (UTC).")
    raw_file = models.FileField(upload_to="finops/%Y/%m/")
    original_name = models.CharField(max_length=255)
    size_bytes = models.PositiveBigIntegerField(default=0)
    # How rows are matched to the decision (finops/focus/matching.py).
    provider_names = models.JSONField(default=list)
    account_ids = models.JSONField(default=list, blank=True)
    tags = models.JSONField(default=list, blank=True, help_text='["key=value", …]')
    sku_ids = models.JSONField(default=list, blank=True)
    resource_ids = models.JSONField(default=list, blank=True)
    gpus_per_instance = models.PositiveIntegerField(default=1)

    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PENDING)
    progress = models.FloatField(default=0.0)
    attempts = models.PositiveSmallIntegerField(default=0)
    claimed_at = models.DateTimeField(null=True, blank=True)
    error = models.TextField(blank=True)

    rows_total = models.PositiveBigIntegerField(default=0)
    rows_matched = models.PositiveBigIntegerField(default=0)
    rows_unmatched = models.PositiveBigIntegerField(default=0)
    gpu_hours = models.DecimalField(max_digits=24, decimal_places=6, default=0)
    gpu_cost_usd = models.DecimalField(**MONEY, default=0)
    other_cost_usd = models.DecimalField(**MONEY, default=0)
    unmatched_cost_usd = models.DecimalField(**MONEY, default=0)
    unmatched_by_reason = models.JSONField(default=dict, blank=True)
    unmatched_sample = models.JSONField(default=list, blank=True)
    currencies = models.JSONField(default=list, blank=True)
    # {provider lower-case: {rows, gpu_hours, gpu_cost_usd, other_cost_usd}} (Decimal text):
    # the matched totals per vendor, which a plan across offers is reconciled on.
    by_provider = models.JSONField(default=dict, blank=True)

    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["status", "claimed_at"])]

    def __str__(self) -> str:
        return f"{self.original_name} ({self.month:%Y-%m})"

    @property
    def matched_cost_usd(self) -> Decimal:
        return Decimal(self.gpu_cost_usd) + Decimal(self.other_cost_usd)

    @property
    def is_finished(self) -> bool:
        return self.status in {self.Status.DONE, self.Status.FAILED}


class ActualOutputs(models.Model):
    """The accepted outputs the team counted for one month of a decision (append-only: the
    newest entry for a month is the one reconciled)."""

    class Source(models.TextChoices):
        FORM = "form", "Entered"
        CSV = "csv", "CSV upload"
        VLLM = "vllm", "vLLM metrics scrape"
        API = "api", "REST API"

    comparison = models.ForeignKey(
        "procurement.Comparison", on_delete=models.PROTECT, related_name="actual_outputs"
    )
    month = models.DateField()
    accepted_outputs = models.DecimalField(max_digits=24, decimal_places=4)
    acceptance_share = models.DecimalField(max_digits=7, decimal_places=6)
    completed_outputs = models.DecimalField(max_digits=24, decimal_places=4, null=True, blank=True)
    generation_tokens = models.DecimalField(max_digits=24, decimal_places=0, null=True, blank=True)
    source = models.CharField(max_length=10, choices=Source.choices)
    original_name = models.CharField(max_length=255, blank=True)
    entered_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            models.CheckConstraint(
                name="actual_outputs_not_negative", condition=Q(accepted_outputs__gte=0)
            ),
            models.CheckConstraint(
                name="actual_acceptance_share_range",
                condition=Q(acceptance_share__gt=0) & Q(acceptance_share__lte=1),
            ),
        ]

    def __str__(self) -> str:
        return f"{self.accepted_outputs} accepted in {self.month:%Y-%m}"


class Reconciliation(models.Model):
    """Forecast against actual for one decision and month, recomputed whenever its bill or
    its counts change; the drift flag is raised past FINOPS_DRIFT_TOLERANCE."""

    comparison = models.ForeignKey(
        "procurement.Comparison", on_delete=models.PROTECT, related_name="reconciliations"
    )
    month = models.DateField()
    billing_import = models.ForeignKey(BillingImport, on_delete=models.PROTECT, related_name="+")
    actual_outputs = models.ForeignKey(ActualOutputs, on_delete=models.PROTECT, related_name="+")
    forecast_spend_usd = models.DecimalField(**MONEY)
    actual_spend_usd = models.DecimalField(**MONEY)
    forecast_accepted_outputs = models.DecimalField(max_digits=24, decimal_places=4)
    actual_accepted_outputs = models.DecimalField(max_digits=24, decimal_places=4)
    forecast_unit_cost_usd = models.DecimalField(**RATIO)
    actual_unit_cost_usd = models.DecimalField(**RATIO)
    cost_ratio = models.DecimalField(**RATIO)
    forecast_utilisation = models.DecimalField(**RATIO, null=True, blank=True)
    actual_utilisation = models.DecimalField(**RATIO, null=True, blank=True)
    forecast_acceptance = models.DecimalField(max_digits=7, decimal_places=6)
    actual_acceptance = models.DecimalField(max_digits=7, decimal_places=6)
    drivers = models.JSONField(default=list, help_text="[{name, label, per_output}] (Decimal text)")
    note = models.TextField(blank=True)
    # A plan across offers: each vendor's month, [{provider, parts, forecast_spend_usd,
    # actual_spend_usd, spend_ratio, gpu_hours, billing_import, drift}] (Decimal text);
    # [] for a decision on one row.
    vendors = models.JSONField(default=list, blank=True)
    tolerance = models.DecimalField(max_digits=7, decimal_places=4)
    drift = models.BooleanField(default=False)
    computed_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["comparison", "month"]
        constraints = [
            models.UniqueConstraint(
                fields=["comparison", "month"], name="one_reconciliation_per_month"
            )
        ]

    def __str__(self) -> str:
        return f"{self.comparison_id} {self.month:%Y-%m}"
