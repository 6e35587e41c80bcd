"""A flag on an approved decision: the price it approved has changed since."""

from __future__ import annotations

from django.conf import settings
from django.db import models

from procurement.models.comparisons import CandidateResult, Comparison


class PriceChange(models.Model):
    """A quote version an approved decision relies on was revised or withdrawn afterwards.

    One row per (decision, new quote version): raising it twice changes nothing."""

    class Kind(models.TextChoices):
        REVISED = "revised", "Revised"
        WITHDRAWN = "withdrawn", "Withdrawn"

    comparison = models.ForeignKey(
        Comparison, on_delete=models.PROTECT, related_name="price_changes"
    )
    candidate = models.ForeignKey(CandidateResult, on_delete=models.PROTECT, related_name="+")
    approved_quote = models.ForeignKey("catalog.Quote", on_delete=models.PROTECT, related_name="+")
    new_quote = models.ForeignKey("catalog.Quote", on_delete=models.PROTECT, related_name="+")
    kind = models.CharField(max_length=20, choices=Kind.choices)
    currency = models.CharField(max_length=3)
    # None for a purchase quote's hourly price, or when the new version has no price.
    old_price = models.DecimalField(max_digits=14, decimal_places=4, null=True, blank=True)
    new_price = models.DecimalField(max_digits=14, decimal_places=4, null=True, blank=True)
    price_unit = models.CharField(max_length=20, default="per GPU-hour")
    # The changed quote is one vendor's part of the approved cheapest plan across offers
    # (`candidate` is that part's row), not the approved row itself.
    on_plan = models.BooleanField(default=False)
    created_at = models.DateTimeField(auto_now_add=True)
    # The effect on the changed row, recomputed on a copy of the frozen snapshot with the new
    # price: unit cost, commitment, rank and the new first row (see services.price_impact).
    impact = models.JSONField(default=dict, blank=True)
    acknowledged_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="+",
    )
    acknowledged_at = models.DateTimeField(null=True, blank=True)
    # A worker assesses the impact and sends the notices after the vendor's commit
    # (services.price_change_delivery); until `impact_assessed_at` is set the pages say the
    # impact is being computed, and until `notified_at` is set the beat re-drive sends the
    # flag again. `claimed_at` is set while a run holds the flag (None between attempts);
    # `attempts` counts the runs that claimed it; `last_error` is the last failed run's error.
    impact_assessed_at = models.DateTimeField(null=True, blank=True)
    notified_at = models.DateTimeField(null=True, blank=True)
    claimed_at = models.DateTimeField(null=True, blank=True)
    attempts = models.PositiveIntegerField(default=0)
    last_error = models.TextField(blank=True)

    class Meta:
        ordering = ["-created_at", "-pk"]
        constraints = [
            models.UniqueConstraint(
                fields=["comparison", "new_quote"], name="one_price_change_per_version"
            )
        ]
        indexes = [
            # the beat re-drive's read: the few flags whose notices are still to go out
            models.Index(
                fields=["created_at"],
                name="price_change_undelivered",
                condition=models.Q(notified_at__isnull=True),
            )
        ]

    def __str__(self) -> str:
        return f"Price changed since approval: {self.summary}"

    @property
    def impact_pending(self) -> bool:
        """The worker has not assessed this flag's impact yet."""
        return self.impact_assessed_at is None

    @property
    def summary(self) -> str:
        quote = f"quote #{self.approved_quote_id} ({self.approved_quote})"
        if self.kind == self.Kind.WITHDRAWN:
            return f"{quote} was withdrawn (approved at {self.old_price} {self.currency})"
        return (
            f"{quote} now stands at {self.new_price} {self.currency} {self.price_unit} "
            f"(version #{self.new_quote_id}); approved at {self.old_price} {self.currency}"
        )
