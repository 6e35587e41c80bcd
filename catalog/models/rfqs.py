"""Requests for quotes, and the price-file imports a worker runs."""

from __future__ import annotations

from datetime import datetime

from django.conf import settings
from django.db import models
from django.urls import reverse
from django.utils import timezone

from accounts.models import Provider
from catalog.choices import CapacityModel
from catalog.models.hardware import Accelerator


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

    def region_list(self) -> list[str]:
        """The RFQ's regions, one per item: a vendor answers with one of them, never the list."""
        return [r.strip() for r in (self.region or "").split(",") if r.strip()]

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
