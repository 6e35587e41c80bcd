"""What a reviewer approved when they approved the cheapest plan across offers."""

from __future__ import annotations

from django.db import models

from procurement.models.comparisons import CandidateResult, Comparison, Review


class PlanPart(models.Model):
    """One vendor's part of the cheapest plan a review approved, as the reviewer saw it.

    Written with the approval, one row per vendor offer of the plan (its candidate row names
    the quote version or API route), never edited: the decision record, the exports and the
    price-change flags read the approved plan from here."""

    review = models.ForeignKey(Review, on_delete=models.PROTECT, related_name="plan_parts")
    comparison = models.ForeignKey(Comparison, on_delete=models.PROTECT, related_name="plan_parts")
    candidate = models.ForeignKey(CandidateResult, on_delete=models.PROTECT, related_name="+")
    position = models.PositiveSmallIntegerField()  # the plan's own order of its vendors
    label = models.CharField(max_length=300)
    configuration = models.CharField(max_length=300, blank=True)
    capacity = models.CharField(max_length=10)  # fixed, elastic or api (engine/plan)
    role = models.CharField(max_length=40)  # "committed base", "overflow" or both
    replicas = models.PositiveIntegerField(default=0)
    gpus = models.PositiveIntegerField(default=0)
    monthly_cost_usd = models.DecimalField(max_digits=16, decimal_places=2)
    # What the decision commits to on this vendor (ADR 0006): the larger of the contract
    # (committed GPU-hours × price × term) and the expected spend over the brief's horizon.
    commitment_usd = models.DecimalField(max_digits=16, decimal_places=2)
    contract_usd = models.DecimalField(max_digits=16, decimal_places=2)
    term_months = models.PositiveSmallIntegerField(default=0)
    term = models.CharField(max_length=80)
    # The checklist level this part's quote was held to: the plan's (that of its largest
    # commitment) or the quote's own, whichever asks more; "" for an API route.
    checklist_level = models.CharField(max_length=10, blank=True)

    class Meta:
        ordering = ["review", "position"]
        constraints = [
            models.UniqueConstraint(fields=["review", "candidate"], name="one_plan_part_per_offer")
        ]

    def __str__(self) -> str:
        return f"{self.label}: {self.commitment_usd}"
