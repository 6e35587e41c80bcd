"""Quotes: immutable versions of a provider's offer, and which of them are current."""

from __future__ import annotations

from datetime import datetime, timedelta

from django.conf import settings
from django.db import models
from django.db.models import Exists, OuterRef, Q
from django.urls import reverse
from django.utils import timezone

from accounts.models import Provider
from catalog.choices import CapacityModel, PriceUnit, PrivateEndpoint, UnitOfSale
from catalog.models.common import MONEY, POSITIVE
from catalog.models.hardware import Accelerator

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
    # Fixed capacity is billed in what the vendor sells (P3): by the GPU, or in whole nodes of
    # ``gpus_per_node``. Blank: not stated (costed by the GPU, with a warning on the row).
    unit_of_sale = models.CharField(
        max_length=10,
        choices=UnitOfSale.choices,
        blank=True,
        help_text="Reserved or dedicated capacity sold by the GPU or only in whole nodes.",
    )
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
