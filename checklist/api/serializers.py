"""API shapes for checklist items, answers and reviews (input validates shape only)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.urls import reverse
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from checklist import evidence, services
from checklist.models import ChecklistAnswer, ChecklistItem, ChecklistReview, Section
from core.api.fields import PersonField, SlugLookupField
from core.errors import DomainError


def _enum_field(choices: Any) -> Callable[..., serializers.ChoiceField]:
    """A ChoiceField documented as an inline enum: other apps also have "status"/"decision"
    fields with other choices, and named enum components would collide in the schema."""
    values = [c if isinstance(c, str) else c[0] for c in choices]

    @extend_schema_field({"type": "string", "enum": values})
    class EnumField(serializers.ChoiceField):
        def __init__(self, **kwargs: Any) -> None:
            super().__init__(choices=choices, **kwargs)

    return EnumField


AnswerStatusField = _enum_field(ChecklistAnswer.Status.choices)
ReviewStatusField = _enum_field(ChecklistAnswer.ReviewStatus.choices)
DecisionField = _enum_field(list(services.REVIEW_DECISIONS))
SectionField = _enum_field(Section.choices)


class ChecklistItemSerializer(serializers.ModelSerializer[ChecklistItem]):
    section = SectionField(read_only=True)

    class Meta:
        model = ChecklistItem
        fields = ["code", "section", "order", "title", "help_text", "is_basic"]


class ChecklistReviewOutputSerializer(serializers.ModelSerializer[ChecklistReview]):
    reviewer = PersonField()
    decision = serializers.CharField(read_only=True, help_text="accepted, needs_info or red_flag")

    class Meta:
        model = ChecklistReview
        fields = ["id", "answer", "decision", "comment", "reviewer", "created_at"]


class ChecklistAnswerOutputSerializer(serializers.ModelSerializer[ChecklistAnswer]):
    item = serializers.CharField(source="item.code", read_only=True)
    scope = serializers.SerializerMethodField()
    status = AnswerStatusField(read_only=True)
    review_status = ReviewStatusField(read_only=True)
    evidence_file_name = serializers.CharField(source="evidence_name", read_only=True)
    evidence_download_url = serializers.SerializerMethodField()
    has_evidence = serializers.BooleanField(read_only=True)
    answered_by = serializers.CharField(source="answered_by.username", read_only=True)
    reviews = ChecklistReviewOutputSerializer(many=True, read_only=True)

    class Meta:
        model = ChecklistAnswer
        fields = [
            "id",
            "item",
            "provider",
            "quote",
            "scope",
            "answer",
            "status",
            "evidence_url",
            "evidence_file_name",
            "evidence_sha256",
            "evidence_download_url",
            "has_evidence",
            "review_status",
            "supersedes",
            "answered_by",
            "answered_at",
            "reviews",
        ]

    @extend_schema_field({"type": "string", "enum": list(services.SCOPES)})
    def get_scope(self, obj: ChecklistAnswer) -> str:
        return services.SCOPE_PROVIDER if obj.quote_id is None else services.SCOPE_QUOTE

    def get_evidence_download_url(self, obj: ChecklistAnswer) -> str | None:
        if not obj.evidence_file:
            return None
        path = reverse("checklist:evidence", args=[obj.pk])
        request = self.context.get("request")
        return request.build_absolute_uri(path) if request else path


class ChecklistAnswerInputSerializer(serializers.Serializer[Any]):
    item = SlugLookupField(
        slug_field="code",
        queryset=ChecklistItem.objects.all(),
        error_messages={"does_not_exist": "There is no checklist item with the code “{value}”."},
    )
    answer = serializers.CharField(max_length=5000)
    status = serializers.ChoiceField(choices=ChecklistAnswer.Status.choices)
    scope = serializers.ChoiceField(choices=list(services.SCOPES), default=services.SCOPE_QUOTE)
    evidence_url = serializers.URLField(max_length=500, required=False, allow_blank=True)
    evidence_file = serializers.FileField(required=False, allow_null=True)
    keep_evidence = serializers.BooleanField(
        default=True,
        help_text="Without new evidence, keep the previous answer's document or link.",
    )

    def validate_evidence_file(self, value: Any) -> Any:
        if value is None:
            return None
        try:
            evidence.check_upload(value)
        except DomainError as exc:
            raise serializers.ValidationError(exc.message) from exc
        return value

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        oversized = self.context.get("oversized") or {}
        if "evidence_file" in oversized:
            raise serializers.ValidationError(
                {"evidence_file": evidence.too_large_message(oversized["evidence_file"])}
            )
        if attrs.get("evidence_url") and attrs.get("evidence_file") is not None:
            raise serializers.ValidationError(
                {"evidence_url": "Give either a document or a link, not both."}
            )
        return attrs

    def entry(self) -> services.AnswerEntry:
        data = dict(self.validated_data)
        data["remove_evidence"] = not data.pop("keep_evidence", True)
        return services.entry_from_data(data.pop("item"), data)


class ChecklistReviewInputSerializer(serializers.Serializer[Any]):
    decision = DecisionField()
    comment = serializers.CharField(max_length=5000, required=False, allow_blank=True)
