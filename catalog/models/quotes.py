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
from catalog.models.common import MONEY, POSITIVE, optional_money, within
from catalog.models.hardware import Accelerator
from engine.limits import MAX_TERM_MONTHS

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
    """One immutable version of a provider's priced GPU offer; a revision is a new row.

    Each field is declared once, here: its label, help text, limits and decimals. The quote
    form, the API, the admin and the rules every entry runs (catalog.validation) read them."""

    class Status(models.TextChoices):
        SUBMITTED = "submitted", "Submitted"
        WITHDRAWN = "withdrawn", "Withdrawn"

    provider = models.ForeignKey(Provider, on_delete=models.PROTECT, related_name="quotes")
    accelerator = models.ForeignKey(
        Accelerator,
        on_delete=models.PROTECT,
        related_name="quotes",
        help_text="The exact GPU model in the node (memory size matters: A100 40 GB ≠ 80 GB).",
    )
    rfq = models.ForeignKey(
        "catalog.Rfq", null=True, blank=True, on_delete=models.PROTECT, related_name="quotes"
    )
    title = models.CharField(
        max_length=200,
        blank=True,
        help_text="Optional short name, e.g. the instance type or offer name.",
    )
    version = models.PositiveIntegerField(default=1)
    supersedes = models.OneToOneField(
        "self", null=True, blank=True, on_delete=models.PROTECT, related_name="superseded_by"
    )
    status = models.CharField(max_length=20, choices=Status.choices, default=Status.SUBMITTED)
    is_public_list_price = models.BooleanField(default=False)

    capacity_model = models.CharField(
        max_length=30,
        choices=CapacityModel.choices,
        help_text="How the capacity is sold: on-demand and spot are elastic; reserved, "
        "dedicated cluster and private cloud are commitments; purchase means you buy the nodes.",
    )
    currency = models.CharField(
        max_length=3,
        default="USD",
        help_text="Three-letter ISO 4217 code of every price on this quote (USD, EUR, GBP...).",
    )
    price_unit = models.CharField(
        max_length=20,
        choices=PriceUnit.choices,
        default=PriceUnit.GPU_HOUR,
        help_text="The unit the vendor quotes in. A node-hour covers the node's GPUs; an "
        "instance-hour the instance's GPUs (state them). The page shows both prices.",
    )
    price_as_quoted = models.DecimalField(
        **MONEY,
        null=True,
        blank=True,
        validators=POSITIVE,
        help_text="The price in the unit above, as quoted (e.g. USD 98.32 per 8-GPU "
        "instance-hour). Optional for a price per GPU-hour.",
    )
    gpus_per_priced_unit = models.PositiveSmallIntegerField(
        "GPUs per instance",
        null=True,
        blank=True,
        help_text="Instance-hour prices only: the GPUs one instance has.",
    )
    # Always per GPU-hour (what the comparison and the plausibility check read); a price
    # per node- or instance-hour is kept as quoted beside it and converted on save.
    price_per_gpu_hour = optional_money(
        "Price per GPU-hour",
        high=100_000,
        help_text="Price of one GPU for one hour, all node resources included. Required unless "
        "the capacity model is purchase, or the price is given per node-hour or per "
        "instance-hour above (then it is computed).",
    )
    # Purchase quotes: capex per node, support per year, power, amortisation.
    price_per_node = optional_money(
        high=1_000_000_000,
        help_text="Purchase only: price of one complete node (all GPUs, CPUs, RAM, NICs).",
    )
    support_per_year = optional_money(
        high=1_000_000_000,
        help_text="Purchase only: yearly support and warranty per node.",
    )
    power_kw_per_node = models.DecimalField(
        "Power per node (kW)",
        max_digits=8,
        decimal_places=3,
        null=True,
        blank=True,
        validators=within(0, 1_000),
        help_text="Purchase only: typical power draw of one node under load, in kW.",
    )
    amortisation_months = models.PositiveIntegerField(
        "Amortisation (months)",
        null=True,
        blank=True,
        validators=within(1, MAX_TERM_MONTHS),
        help_text="Purchase only: months over which the node is written off.",
    )

    gpus_per_node = models.PositiveSmallIntegerField(
        "GPUs per node",
        default=8,
        help_text="GPUs in one node (or NVLink domain for rack-scale systems).",
    )
    max_gpus_available = models.PositiveIntegerField(
        "GPUs available",
        null=True,
        blank=True,
        validators=within(1, 1_000_000),
        help_text="The most GPUs you can provide for this offer, in total (the whole fleet a "
        "buyer may need at peak must fit in it).",
    )
    # Fixed capacity is billed in what the vendor sells (P3): by the GPU, or in whole nodes of
    # ``gpus_per_node``. Blank: not stated (costed by the GPU, with a warning on the row).
    unit_of_sale = models.CharField(
        max_length=10,
        choices=UnitOfSale.choices,
        blank=True,
        help_text="Reserved or dedicated capacity: sold by the GPU, or only in whole nodes (the "
        "comparison then bills whole nodes). Empty: not stated.",
    )
    # When the capacity can be delivered: a fleet is only there from this date, after this
    # lead time from the order (both optional: not stated).
    capacity_available_from = models.DateTimeField(
        null=True, blank=True, help_text="From when those GPUs can be delivered (UTC). Empty: now."
    )
    capacity_lead_time_days = models.PositiveIntegerField(
        "Lead time (days)",
        null=True,
        blank=True,
        help_text="Days from the order until the capacity is usable.",
    )
    vcpu_per_node = models.PositiveIntegerField(
        "Virtual CPUs per node", null=True, blank=True, help_text="Virtual CPUs per node."
    )
    ram_gb_per_node = models.PositiveIntegerField(
        "RAM per node (GB)", null=True, blank=True, help_text="System memory per node, in GB."
    )
    local_nvme_tb_per_node = models.DecimalField(
        "Local NVMe per node (TB)",
        max_digits=8,
        decimal_places=2,
        null=True,
        blank=True,
        help_text="Local NVMe scratch storage per node, in TB.",
    )
    intra_node_interconnect = models.CharField(
        max_length=80,
        blank=True,
        help_text="How GPUs inside a node talk: e.g. NVLink 4 / NVSwitch, PCIe 5.",
    )
    inter_node_fabric = models.CharField(
        max_length=80,
        blank=True,
        help_text="Network between nodes: e.g. InfiniBand NDR, RoCE, EFA, Ethernet.",
    )
    inter_node_bandwidth_gbps = models.PositiveIntegerField(
        "Inter-node bandwidth (Gbit/s)",
        null=True,
        blank=True,
        help_text="Fabric bandwidth per node, in Gbit/s.",
    )
    region = models.CharField(
        max_length=60, blank=True, help_text="Region of the capacity, e.g. eu-west or us-east."
    )
    zone = models.CharField(
        max_length=60, blank=True, help_text="Availability zone or data centre, if fixed."
    )
    zones = models.JSONField(
        default=list,
        blank=True,
        help_text="Every zone the same price holds in (an imported list collapses zones).",
    )
    placement = models.CharField(
        max_length=200,
        blank=True,
        help_text="Placement guarantees: same rack, placement group, dedicated cluster...",
    )
    private_endpoint = models.CharField(
        max_length=10,
        choices=PrivateEndpoint.choices,
        default=PrivateEndpoint.UNKNOWN,
        help_text="Private link or VPC peering to the GPUs, without the public internet. Not "
        "stated: a brief that requires a private endpoint cannot choose this offer.",
    )

    min_commitment_gpus = models.PositiveIntegerField(
        "Minimum commitment (GPUs)",
        default=0,
        validators=within(0, 1_000_000),
        help_text="Minimum number of GPUs that must be committed (0 = none).",
    )
    term_months = models.PositiveIntegerField(
        "Term (months)",
        default=0,
        validators=within(0, MAX_TERM_MONTHS),
        help_text="Commitment term in months (0 = no term). Required for reserved capacity.",
    )
    cancellation_terms = models.TextField(
        blank=True, help_text="What cancelling early costs and how much notice is needed."
    )
    overage_rate_per_gpu_hour = optional_money(
        "Overage per GPU-hour",
        high=100_000,
        help_text="Price per GPU-hour beyond the committed capacity.",
    )
    storage_per_gb_month = optional_money(
        "Storage per GB-month",
        high=10_000,
        help_text="Block or file storage, per GB-month.",
    )
    egress_per_gb = optional_money(
        "Egress per GB",
        high=10_000,
        help_text="Data transfer out, per GB.",
    )
    snapshot_per_gb_month = optional_money(
        "Snapshots per GB-month",
        high=10_000,
        help_text="Snapshots and backups, per GB-month.",
    )
    public_ip_per_month = optional_money(
        "Public IP per month",
        high=1_000_000,
        help_text="Each public IP address, per month.",
    )
    load_balancer_per_month = optional_money(
        high=1_000_000,
        help_text="Each load balancer, per month.",
    )
    private_networking_per_month = optional_money(
        high=1_000_000,
        help_text="Private networking / VPC peering, per month.",
    )
    idle_billed = models.BooleanField(
        "Idle capacity is billed",
        default=True,
        help_text="Tick if reserved but idle GPUs are still billed.",
    )
    shutdown_automation = models.CharField(
        max_length=200,
        blank=True,
        help_text="How idle capacity is stopped: API, schedules, automatic shutdown...",
    )
    usage_export_format = models.CharField(
        max_length=120, blank=True, help_text="How usage can be exported: CSV, FOCUS, API..."
    )
    invoice_granularity = models.CharField(
        max_length=60,
        blank=True,
        help_text="Billing granularity: per second, per minute, per hour, monthly...",
    )
    support_tier = models.CharField(
        max_length=120, blank=True, help_text="Support level included and its response times."
    )

    quoted_at = models.DateTimeField(
        "Captured at (UTC)",
        help_text="When this price was captured (UTC). Cannot be in the future.",
    )
    valid_until = models.DateTimeField(
        "Valid until (UTC)",
        null=True,
        blank=True,
        help_text="Until when the price is guaranteed (UTC). Leave empty if open-ended.",
    )
    source_url = models.URLField(
        "Source URL",
        max_length=500,
        blank=True,
        help_text="Where the price comes from: a public price page or the offer document URL.",
    )
    source_document = models.CharField(
        max_length=200,
        blank=True,
        help_text="Or the name of the offer document (e.g. 'Offer 2025-114.pdf').",
    )
    list_key = models.CharField(
        max_length=300,
        blank=True,
        db_index=True,
        help_text="An imported list price's offer identity (provider, instance type, region, "
        "capacity model): a re-import revises the quote with the same key.",
    )
    notes = models.TextField(blank=True, help_text="Anything else a reviewer should know.")
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
