"""The procurement checklist: 20 items in four sections, vendor answers and their reviews."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q

from accounts.models import Provider


class Section(models.TextChoices):
    HARDWARE = "hardware", "Hardware and topology"
    SOFTWARE = "software", "Software stack"
    COMMERCIAL = "commercial", "Commercial model"
    SECURITY = "security", "Security and governance"


class ChecklistItem(models.Model):
    """One question every provider should answer before a purchase or rental."""

    code = models.SlugField(max_length=60, unique=True)
    section = models.CharField(max_length=20, choices=Section.choices)
    order = models.PositiveSmallIntegerField()
    title = models.CharField(max_length=200)
    help_text = models.TextField(help_text="What good evidence looks like.")
    is_basic = models.BooleanField(
        default=False, help_text="Required even for on-demand and spot capacity."
    )

    class Meta:
        ordering = ["order"]

    def __str__(self) -> str:
        return self.title


class ChecklistAnswer(models.Model):
    """A vendor's answer to one item, immutable; answering again adds a newer row.

    `quote` null means the provider's default answer, reused by all its quotes unless a
    quote-specific answer overrides it.
    """

    class Status(models.TextChoices):
        YES = "yes", "Yes"
        PARTIAL = "partial", "Partial"
        NO = "no", "No"
        UNKNOWN = "unknown", "Unknown"

    class ReviewStatus(models.TextChoices):
        PENDING = "pending", "Awaiting review"
        ACCEPTED = "accepted", "Accepted"
        NEEDS_INFO = "needs_info", "Needs more information"
        RED_FLAG = "red_flag", "Red flag"

    provider = models.ForeignKey(Provider, on_delete=models.PROTECT, related_name="answers")
    quote = models.ForeignKey(
        "catalog.Quote", null=True, blank=True, on_delete=models.PROTECT, related_name="answers"
    )
    item = models.ForeignKey(ChecklistItem, on_delete=models.PROTECT, related_name="answers")
    answer = models.TextField()
    status = models.CharField(max_length=10, choices=Status.choices)
    evidence_url = models.URLField(max_length=500, blank=True)
    evidence_file = models.FileField(upload_to="evidence/%Y/%m/", blank=True)
    evidence_name = models.CharField(max_length=255, blank=True)
    evidence_sha256 = models.CharField(max_length=64, blank=True)
    supersedes = models.OneToOneField(
        "self", null=True, blank=True, on_delete=models.PROTECT, related_name="superseded_by"
    )
    review_status = models.CharField(
        max_length=12, choices=ReviewStatus.choices, default=ReviewStatus.PENDING
    )
    answered_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+"
    )
    answered_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["item__order", "-answered_at"]
        indexes = [models.Index(fields=["provider", "quote", "item"])]

    def __str__(self) -> str:
        return f"{self.provider}: {self.item.code} = {self.status}"

    @property
    def has_evidence(self) -> bool:
        return bool(self.evidence_file) or bool(self.evidence_url)


class ChecklistReview(models.Model):
    """A reviewer's verdict on one answer: accepted, needs more information, or red flag."""

    answer = models.ForeignKey(ChecklistAnswer, on_delete=models.PROTECT, related_name="reviews")
    reviewer = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+"
    )
    decision = models.CharField(
        max_length=12,
        choices=[(c, label) for c, label in ChecklistAnswer.ReviewStatus.choices if c != "pending"],
    )
    comment = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at"]
        constraints = [
            models.CheckConstraint(
                name="needs_info_has_comment",
                condition=Q(decision="accepted") | ~Q(comment=""),
            )
        ]

    def __str__(self) -> str:
        return f"{self.get_decision_display()}: {self.answer_id}"
