"""Comparisons (the decision record), their candidate rows, and finance reviews."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.conf import settings
from django.db import models
from django.db.models import F, Q
from django.urls import reverse

from procurement.snapshot.evidence import result_ids_in
from procurement.snapshot.upgrade import upgrade


class Comparison(models.Model):
    """A frozen set of inputs (snapshot + seed + engine version) and its computed rows."""

    class Status(models.TextChoices):
        DRAFT = "draft", "Draft"
        QUEUED = "queued", "Queued"
        RUNNING = "running", "Running"
        READY = "ready", "Ready for review"
        APPROVED = "approved", "Approved"
        REJECTED = "rejected", "Rejected"
        CHANGES_REQUESTED = "changes_requested", "Changes requested"
        FAILED = "failed", "Failed"

    title = models.CharField(max_length=200)
    brief = models.ForeignKey(
        "briefs.WorkloadBrief", on_delete=models.PROTECT, related_name="comparisons"
    )
    quotes = models.ManyToManyField("catalog.Quote", blank=True, related_name="comparisons")
    api_routes = models.ManyToManyField(
        "catalog.ModelApiRoute", blank=True, related_name="comparisons"
    )
    revision = models.PositiveIntegerField(default=1)
    supersedes = models.OneToOneField(
        "self", null=True, blank=True, on_delete=models.PROTECT, related_name="superseded_by"
    )
    status = models.CharField(max_length=20, choices=Status.choices, default=Status.QUEUED)
    # One decision per need (issue 40, U2): an approval of another comparison of the same
    # brief that said it supersedes this one; a superseded decision is no longer tracked.
    decision_superseded_by = models.ForeignKey(
        "self",
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="superseded_decisions",
    )
    decision_superseded_at = models.DateTimeField(null=True, blank=True)
    progress = models.FloatField(default=0.0)
    seed = models.BigIntegerField()
    samples = models.PositiveIntegerField(default=10_000)
    engine_version = models.CharField(max_length=20, blank=True)
    assumptions = models.JSONField(default=dict, blank=True, help_text="Overrides of defaults.")
    # The candidates as the lead chose them, checked by the request (as_of, quote_ids and
    # api_route_ids or null for the default set, filters): the worker freezes the snapshot
    # from it (L9: freezing 20,000 candidates in the request held a web worker 14-39 s).
    chosen = models.JSONField(default=dict, blank=True, editable=False)
    # {} until the worker froze it from `chosen`.
    snapshot = models.JSONField(default=dict, blank=True)
    # What the pages show of the snapshot (as_of, base_currency, fx_rates), copied when it is
    # frozen, so that no page or API body reads the whole snapshot (30 MB at 20,000 quotes).
    snapshot_facts = models.JSONField(default=dict, blank=True, editable=False)
    result = models.JSONField(
        default=dict, blank=True, help_text="Comparison-level output: tornado, break-even..."
    )
    recommended_key = models.CharField(max_length=60, blank=True)
    error = models.TextField(blank=True)
    attempts = models.PositiveSmallIntegerField(default=0)
    required_approvals = models.PositiveSmallIntegerField(default=1)
    commitment_usd = models.DecimalField(max_digits=16, decimal_places=2, null=True, blank=True)
    # How many result rows the computation wrote, stored with them (they never change after):
    # lists read it instead of counting 20,000 rows per listed comparison on each view (L10).
    # Null only for rows written outside comparison_run (fixtures); selectors count those.
    stored_candidate_count = models.PositiveIntegerField(null=True, blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    queued_at = models.DateTimeField(null=True, blank=True)
    claimed_at = models.DateTimeField(null=True, blank=True)
    # "host:pid" of the worker process running it: a redelivery on the same host takes over
    # at once from a dead process instead of waiting for the claim to go stale.
    claimed_by = models.CharField(max_length=200, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    # When finance should have decided: set when the comparison becomes ready (finished_at
    # plus REVIEW_WINDOW_BUSINESS_DAYS); the dashboard and the decision bar flag it overdue.
    review_due_at = models.DateTimeField(null=True, blank=True)
    decided_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]
        indexes = [models.Index(fields=["status", "claimed_at"])]

    def __str__(self) -> str:
        return f"{self.title} (rev {self.revision})"

    def get_absolute_url(self) -> str:
        return reverse("procurement:comparison-detail", args=[self.pk])

    @staticmethod
    def facts_of(snapshot: Mapping[str, object]) -> dict[str, Any]:
        """The small part of a snapshot that pages show, with the ids of the benchmark
        results it froze (the decision record lists only those as its evidence)."""

        facts = {k: snapshot[k] for k in ("as_of", "base_currency", "fx_rates") if k in snapshot}
        facts["evidence_result_ids"] = result_ids_in(upgrade(snapshot)["measured"])
        return facts

    def shown_snapshot_facts(self) -> dict[str, Any]:
        """`snapshot_facts`, or (a row written without them) the same read from the snapshot."""
        if self.snapshot_facts:
            return dict(self.snapshot_facts)
        return self.facts_of(self.snapshot or {})

    @property
    def is_finished(self) -> bool:
        return self.status not in {self.Status.QUEUED, self.Status.RUNNING, self.Status.DRAFT}


def refusals_of(warnings: Any, reasons: Any) -> dict[str, str]:
    """What refused an ineligible row, code → detail: each blocking warning, else the row's
    first stated reason (as both code and detail)."""
    blocks = [w for w in warnings or [] if isinstance(w, dict) and w.get("severity") == "block"]
    found = {str(w.get("code") or ""): str(w.get("detail") or "") for w in blocks}
    if not found:
        first = str((reasons or ["no reason recorded"])[0])
        found = {first: first}
    return found


def refusal_key(*, eligible: bool, warnings: Any, reasons: Any) -> str:
    """The stored grouping key of what refused a row ("" for an eligible row): the blocking
    codes, sorted, or the first reason. Rows with one key were refused by the same rules, so
    the decision record counts them in the database."""
    if eligible:
        return ""
    blocks = [w for w in warnings or [] if isinstance(w, dict) and w.get("severity") == "block"]
    if blocks:
        key = "codes:" + "\n".join(sorted({str(w.get("code") or "") for w in blocks}))
    else:
        key = "reason:" + str((reasons or ["no reason recorded"])[0])
    return key[:REFUSAL_KEY_LENGTH]


REFUSAL_KEY_LENGTH = 500


class CandidateResult(models.Model):
    """One computed row of a comparison: a quote version or API route, costed."""

    class Kind(models.TextChoices):
        GPU = "gpu", "GPU quote"
        API = "api", "Model API"
        HYBRID = "hybrid", "Hybrid plan"

    comparison = models.ForeignKey(Comparison, on_delete=models.CASCADE, related_name="candidates")
    key = models.CharField(max_length=60)
    kind = models.CharField(max_length=10, choices=Kind.choices)
    quote = models.ForeignKey(
        "catalog.Quote", null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    api_route = models.ForeignKey(
        "catalog.ModelApiRoute", null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    label = models.CharField(max_length=300)
    provider_name = models.CharField(max_length=200, blank=True)
    accelerator_name = models.CharField(max_length=120, blank=True)
    capacity_model = models.CharField(max_length=30, blank=True)
    gpus = models.PositiveIntegerField(null=True, blank=True)
    hourly_price_usd = models.DecimalField(max_digits=14, decimal_places=4, null=True, blank=True)
    eligible = models.BooleanField(default=True)
    reasons = models.JSONField(default=list, blank=True)
    cost_lines = models.JSONField(default=dict, blank=True, help_text="name → Decimal string")
    total_usd = models.DecimalField(max_digits=18, decimal_places=2, null=True, blank=True)
    accepted_outputs = models.DecimalField(max_digits=24, decimal_places=4, null=True, blank=True)
    unit_cost_usd = models.DecimalField(max_digits=18, decimal_places=6, null=True, blank=True)
    unit_label = models.CharField(max_length=60, blank=True)
    p10 = models.FloatField(null=True, blank=True)
    p50 = models.FloatField(null=True, blank=True)
    p90 = models.FloatField(null=True, blank=True)
    prob_cheapest = models.FloatField(null=True, blank=True)
    rank = models.PositiveIntegerField(null=True, blank=True)
    rank_hourly = models.PositiveIntegerField(null=True, blank=True)
    fit = models.JSONField(default=dict, blank=True)
    performance = models.JSONField(default=dict, blank=True)
    perf_source = models.CharField(max_length=20, blank=True)
    checklist = models.JSONField(default=dict, blank=True)
    warnings = models.JSONField(default=list, blank=True)
    detail = models.JSONField(default=dict, blank=True)
    # refusal_key(...) of the row, written with it; "" on an eligible row (and on an
    # ineligible row written without it, which the record then reads from its warnings).
    refused_by = models.CharField(max_length=REFUSAL_KEY_LENGTH, blank=True, default="")

    class Meta:
        ordering = ["rank", "key"]
        constraints = [
            models.UniqueConstraint(fields=["comparison", "key"], name="candidate_key_unique")
        ]
        indexes = [
            # The record's best rows, and its cheapest row per GPU-hour.
            models.Index(
                fields=["comparison", "eligible", "rank", "key"], name="candidate_rank_idx"
            ),
            models.Index(
                fields=["comparison", "eligible", "hourly_price_usd", "key"],
                name="candidate_hourly_idx",
            ),
            # The ineligible rows counted by what refused them.
            models.Index(
                fields=["comparison", "eligible", "refused_by"], name="candidate_refused_idx"
            ),
        ]

    def __str__(self) -> str:
        return self.label


class Review(models.Model):
    """A reviewer's decision on a comparison. Never edited; four-eyes enforced in the DB too."""

    class Decision(models.TextChoices):
        APPROVE = "approve", "Approve"
        REJECT = "reject", "Reject"
        REQUEST_CHANGES = "request_changes", "Request changes"

    comparison = models.ForeignKey(Comparison, on_delete=models.PROTECT, related_name="reviews")
    comparison_creator = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+"
    )
    reviewer = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="reviews"
    )
    reviewer_role = models.CharField(max_length=20)
    decision = models.CharField(max_length=20, choices=Decision.choices)
    candidate = models.ForeignKey(
        CandidateResult, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    comment = models.TextField()
    justification = models.TextField(blank=True)
    # The approval is for the cheapest plan across offers (its vendors' parts are the
    # review's `plan_parts`), not for one row: `candidate` is then empty.
    approves_plan = models.BooleanField(default=False)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["created_at"]
        constraints = [
            models.CheckConstraint(
                name="four_eyes", condition=~Q(reviewer=F("comparison_creator"))
            ),
            models.CheckConstraint(
                name="plan_approval_names_no_row",
                condition=Q(approves_plan=False) | Q(candidate__isnull=True),
            ),
            models.UniqueConstraint(
                fields=["comparison", "reviewer"], name="one_review_per_reviewer"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.get_decision_display()} by {self.reviewer}"
