"""Model API routes (a provider's price for a model) and FX rates."""

from __future__ import annotations

from datetime import datetime, timedelta
from decimal import Decimal

from django.conf import settings
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.db.models import Q
from django.utils import timezone

from accounts.models import Provider
from catalog.choices import PrivateEndpoint
from catalog.models.common import POSITIVE, TOKEN_MONEY
from catalog.models.hardware import ModelProfile


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
    # What a prompt-cache write costs (Anthropic: 1.25 × input for a 5-minute cache), when
    # the provider prices writes apart; blank: writes are billed as ordinary input tokens.
    price_cache_write_per_m_tokens = models.DecimalField(
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
