"""The calibration ledger: estimates against what was measured."""

from __future__ import annotations

from django.db import models
from django.db.models import Q

from catalog.models.hardware import Accelerator, ModelProfile


class CalibrationEntry(models.Model):
    """One calibration-ledger pair: the roofline estimate and a measurement of the same
    accelerator + model + shape (docs/engine/calibration.md). Written when a comparison
    computes a row measured on its workload; later estimates on the accelerator take their
    spread from these ratios."""

    accelerator = models.ForeignKey(
        Accelerator, on_delete=models.CASCADE, related_name="calibration_entries"
    )
    model_profile = models.ForeignKey(
        ModelProfile, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    model_name = models.CharField(max_length=200)
    shape = models.CharField(max_length=200, help_text="e.g. in 1,500 / out 300 / c32 / 4 GPUs")
    gpus = models.PositiveIntegerField()
    estimated_tokens_per_s = models.FloatField()
    measured_tokens_per_s = models.FloatField()
    # Ids in other areas (benchmarks, comparisons) sit above the catalog: plain ids, no keys.
    benchmark_result_id = models.PositiveIntegerField()
    comparison_id = models.PositiveIntegerField(null=True, blank=True)
    engine_version = models.CharField(max_length=20, blank=True)
    recorded_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-recorded_at", "-id"]
        constraints = [
            models.UniqueConstraint(
                fields=["benchmark_result_id", "accelerator", "gpus", "shape"],
                name="one_calibration_entry_per_result_shape",
            ),
            models.CheckConstraint(
                name="calibration_figures_positive",
                condition=Q(estimated_tokens_per_s__gt=0) & Q(measured_tokens_per_s__gt=0),
            ),
        ]

    def __str__(self) -> str:
        return f"{self.accelerator} · {self.model_name} · {self.shape}"

    @property
    def measured_over_estimate(self) -> float:
        return self.measured_tokens_per_s / self.estimated_tokens_per_s
