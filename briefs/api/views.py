"""/api/v1/briefs/: list, create, read (with missing fields and versions), revise.

Staff read; procurement leads and admins write; vendors get 404 on every route (they may not
even list). No PUT, PATCH or DELETE: a change is a revision, and history stays.
"""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet
from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.generics import GenericAPIView
from rest_framework.request import Request
from rest_framework.response import Response

from accounts.http import api_user
from briefs import access
from briefs import selectors as selectors_briefs
from briefs import services as services_briefs
from briefs.api.memory_fit import PrecisionField
from briefs.models import WorkloadBrief
from briefs.rules import BRIEF_FIELDS, brief_errors, field_label
from briefs.volume import volume_echo
from catalog.models import ModelProfile
from core.api.fields import SlugLookupField
from core.api.permissions import StaffOnly
from core.roles import STAFF_ROLES


class BriefInputSerializer(serializers.ModelSerializer[WorkloadBrief]):
    """Shape of a brief body; `partial=True` for revisions (absent fields keep their value)."""

    model = SlugLookupField(
        slug_field="slug", queryset=ModelProfile.objects.all(), allow_null=True, required=False
    )
    allowed_regions = serializers.ListField(
        child=serializers.CharField(max_length=60), required=False, max_length=50
    )
    # Plain strings in the schema: one precision enum would get two names otherwise.
    weight_precision = PrecisionField(required=False, max_length=10)
    kv_precision = PrecisionField(required=False, max_length=10)
    confirm_volume = serializers.BooleanField(
        required=False,
        write_only=True,
        help_text="Confirms a volume that implies a very large fleet (asked with a 400 "
        "`volume_unconfirmed` otherwise).",
    )

    class Meta:
        model = WorkloadBrief
        fields = [*BRIEF_FIELDS, "confirm_volume"]

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        # Range and token rules on the values given; the service re-checks the merged brief.
        errors = brief_errors(attrs)
        if errors:
            raise serializers.ValidationError(errors)
        return attrs


class VersionSerializer(serializers.ModelSerializer[WorkloadBrief]):
    created_by = serializers.CharField(source="created_by.username", read_only=True)
    url = serializers.SerializerMethodField()

    class Meta:
        model = WorkloadBrief
        fields = ["id", "version", "title", "created_at", "created_by", "url"]

    def get_url(self, obj: WorkloadBrief) -> str:
        return f"/api/v1/briefs/{obj.pk}/"


class BriefOutputSerializer(serializers.ModelSerializer[WorkloadBrief]):
    model: serializers.SlugRelatedField[ModelProfile] = serializers.SlugRelatedField(
        slug_field="slug", read_only=True, allow_null=True
    )
    weight_precision = serializers.CharField(read_only=True)
    kv_precision = serializers.CharField(read_only=True)
    created_by = serializers.CharField(source="created_by.username", read_only=True)
    supersedes: serializers.PrimaryKeyRelatedField[WorkloadBrief] = (
        serializers.PrimaryKeyRelatedField(read_only=True, allow_null=True)
    )
    superseded_by = serializers.SerializerMethodField()
    is_current = serializers.SerializerMethodField()
    missing_fields = serializers.ListField(child=serializers.CharField(), read_only=True)
    missing_labels = serializers.SerializerMethodField()
    is_complete = serializers.BooleanField(read_only=True)
    status = serializers.SerializerMethodField()
    volume = serializers.SerializerMethodField()

    class Meta:
        model = WorkloadBrief
        fields = [
            "id",
            "version",
            "supersedes",
            "superseded_by",
            "is_current",
            "status",
            "is_complete",
            "missing_fields",
            "missing_labels",
            *BRIEF_FIELDS,
            "volume",
            "created_by",
            "created_at",
        ]

    def get_volume(self, obj: WorkloadBrief) -> dict[str, Any] | None:
        """The derived volume: tokens per month, average and peak requests per second."""
        values = {name: getattr(obj, name, None) for name in BRIEF_FIELDS if name != "model"}
        echo = volume_echo(values)
        if echo is None:
            return None
        return {
            "words": echo.words(),
            "unit": echo.unit,
            "output_tokens_per_month": echo.tokens_per_month,
            "average_requests_per_s": round(echo.average_rps, 3),
            "peak_requests_per_s": round(echo.peak_rps, 3),
        }

    def get_superseded_by(self, obj: WorkloadBrief) -> int | None:
        newer = getattr(obj, "superseded_by", None)
        return newer.pk if newer is not None else None

    def get_is_current(self, obj: WorkloadBrief) -> bool:
        return self.get_superseded_by(obj) is None

    def get_missing_labels(self, obj: WorkloadBrief) -> list[str]:
        return [field_label(name) for name in obj.missing_fields()]

    def get_status(self, obj: WorkloadBrief) -> str:
        return "complete" if not obj.missing_fields() else "selection_paused"


class BriefDetailOutputSerializer(BriefOutputSerializer):
    versions = serializers.SerializerMethodField()

    class Meta(BriefOutputSerializer.Meta):
        fields = [*BriefOutputSerializer.Meta.fields, "versions"]

    def get_versions(self, obj: WorkloadBrief) -> list[dict[str, Any]]:
        versions = selectors_briefs.brief_versions(obj)
        # many=True builds a ListSerializer (a list); the stubs type `.data` as one dict.
        return VersionSerializer(versions, many=True).data  # type: ignore[return-value]


class BriefListApi(GenericAPIView[WorkloadBrief]):
    """GET: briefs (latest versions; `?all_versions=1` for every version,
    `?workload_class=`). POST: create version 1."""

    permission_classes = [StaffOnly]
    read_roles = STAFF_ROLES
    write_roles = access.BRIEF_WRITERS
    serializer_class = BriefOutputSerializer

    def get_queryset(self) -> QuerySet[WorkloadBrief]:
        if getattr(self, "swagger_fake_view", False):  # the schema: no signed-in user
            return WorkloadBrief.objects.none()
        params = self.request.query_params
        return selectors_briefs.briefs_list(
            api_user(self.request),
            current_only=params.get("all_versions") not in ("1", "true", "yes"),
            workload_class=params.get("workload_class"),
        )

    @extend_schema(responses=BriefOutputSerializer(many=True))
    def get(self, request: Request) -> Response:
        page = self.paginate_queryset(self.get_queryset())
        data = BriefOutputSerializer(page, many=True).data
        return self.get_paginated_response(data)

    @extend_schema(request=BriefInputSerializer, responses={201: BriefDetailOutputSerializer})
    def post(self, request: Request) -> Response:
        serializer = BriefInputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = dict(serializer.validated_data)
        confirmed = bool(data.pop("confirm_volume", False))
        brief = services_briefs.brief_create(
            acting_user=api_user(request), data=data, volume_confirmed=confirmed
        )
        brief = selectors_briefs.brief_get(api_user(request), brief.pk)
        return Response(BriefDetailOutputSerializer(brief).data, status=status.HTTP_201_CREATED)


class BriefDetailApi(GenericAPIView[WorkloadBrief]):
    """GET one brief version with `missing_fields`, `is_complete` and its version chain."""

    permission_classes = [StaffOnly]
    read_roles = STAFF_ROLES
    serializer_class = BriefDetailOutputSerializer

    def get(self, request: Request, pk: int) -> Response:
        brief = selectors_briefs.brief_get(api_user(request), pk)
        return Response(BriefDetailOutputSerializer(brief).data)


class BriefReviseApi(GenericAPIView[WorkloadBrief]):
    """POST changed fields: a new version that supersedes this one (which stays unchanged)."""

    permission_classes = [StaffOnly]
    write_roles = access.BRIEF_WRITERS
    serializer_class = BriefInputSerializer

    @extend_schema(request=BriefInputSerializer, responses={201: BriefDetailOutputSerializer})
    def post(self, request: Request, pk: int) -> Response:
        brief = selectors_briefs.brief_get(api_user(request), pk)
        serializer = BriefInputSerializer(data=request.data, partial=True)
        serializer.is_valid(raise_exception=True)
        data = dict(serializer.validated_data)
        confirmed = bool(data.pop("confirm_volume", False))
        new = services_briefs.brief_revise(
            acting_user=api_user(request), brief=brief, data=data, volume_confirmed=confirmed
        )
        new = selectors_briefs.brief_get(api_user(request), new.pk)
        return Response(BriefDetailOutputSerializer(new).data, status=status.HTTP_201_CREATED)
