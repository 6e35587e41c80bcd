"""The calibration ledger (docs/engine/calibration.md), two kinds of entry:

- a throughput pair: one operating point of a benchmark result and the roofline estimate at
  that point's concurrency and token lengths, on the same accelerator, model, precision and
  GPUs, written when a comparison computes a row measured on its workload; later estimates
  of that model, precision and workload class on the accelerator take their spread from
  these ratios;
- a billed month: what an approved decision's month cost per accepted output against its
  forecast (finops reconciliation), on the quote the decision took; later comparisons widen
  the cost band of rows on that offer when these ratios say the forecasts were off.
"""

from __future__ import annotations

from django.db import models
from django.db.models import Q


class CalibrationEntry(models.Model):
    class Kind(models.TextChoices):
        THROUGHPUT = "throughput", "Throughput: estimate against measurement"
        COST = "cost", "Cost: forecast against a billed month"

    kind = models.CharField(max_length=12, choices=Kind.choices, default=Kind.THROUGHPUT)
    accelerator = models.ForeignKey(
        "catalog.Accelerator", on_delete=models.CASCADE, related_name="calibration_entries"
    )
    model_profile = models.ForeignKey(
        "catalog.ModelProfile", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    model_name = models.CharField(max_length=200)
    shape = models.CharField(max_length=200, help_text="e.g. in 1,500 / out 300 / c32 / 4 GPUs")
    gpus = models.PositiveIntegerField()
    # The weights' precision and the brief's workload class the pair was measured for: the
    # ledger's key beside the accelerator and model. Blank on pairs kept before engine 1.5.0,
    # whose estimate was taken at the brief's shape; they are listed, never used again.
    precision = models.CharField(max_length=16, blank=True)
    workload_class = models.CharField(max_length=30, blank=True)
    estimated_tokens_per_s = models.FloatField(null=True, blank=True)
    measured_tokens_per_s = models.FloatField(null=True, blank=True)
    # Ids in other areas (benchmarks, comparisons) sit above the catalog: plain ids, no keys.
    benchmark_result_id = models.PositiveIntegerField(null=True, blank=True)
    comparison_id = models.PositiveIntegerField(null=True, blank=True)
    engine_version = models.CharField(max_length=20, blank=True)
    # A billed month: the quote the decision took, the month, and cost per accepted output.
    quote = models.ForeignKey(
        "catalog.Quote", null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    month = models.DateField(null=True, blank=True)
    forecast_unit_cost_usd = models.DecimalField(
        max_digits=30, decimal_places=12, null=True, blank=True
    )
    actual_unit_cost_usd = models.DecimalField(
        max_digits=30, decimal_places=12, null=True, blank=True
    )
    cost_ratio = models.DecimalField(max_digits=30, decimal_places=12, null=True, blank=True)
    recorded_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        app_label = "catalog"
        ordering = ["-recorded_at", "-id"]
        constraints = [
            # One pair per operating point (the shape names its concurrency and lengths) of
            # a result, whatever the number of comparisons or briefs that costed it.
            models.UniqueConstraint(
                fields=[
                    "benchmark_result_id",
                    "accelerator",
                    "gpus",
                    "shape",
                    "precision",
                    "workload_class",
                ],
                name="one_calibration_entry_per_result_point",
            ),
            # A re-imported bill replaces its month's entry.
            models.UniqueConstraint(
                fields=["comparison_id", "month"],
                condition=Q(kind="cost"),
                name="one_cost_entry_per_decision_month",
            ),
            models.CheckConstraint(
                name="calibration_entry_of_its_kind",
                condition=(
                    Q(
                        kind="throughput",
                        estimated_tokens_per_s__gt=0,
                        measured_tokens_per_s__gt=0,
                        benchmark_result_id__isnull=False,
                    )
                    | Q(kind="cost", cost_ratio__gt=0, quote__isnull=False, month__isnull=False)
                ),
            ),
        ]

    def __str__(self) -> str:
        return f"{self.accelerator} · {self.model_name} · {self.shape}"

    @property
    def measured_over_estimate(self) -> float | None:
        if not (self.measured_tokens_per_s and self.estimated_tokens_per_s):
            return None
        return self.measured_tokens_per_s / self.estimated_tokens_per_s
