"""/api/v1/briefs/<id>/traces/: upload a request trace to a brief, list its traces.

The same service as the brief page: the file is kept and read on a worker; poll the trace's
`status` (``pending`` → ``reading`` → ``ready`` or ``failed`` with its ``error``).
"""

from __future__ import annotations

from django.db.models import QuerySet
from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.generics import GenericAPIView
from rest_framework.parsers import FormParser, MultiPartParser
from rest_framework.request import Request
from rest_framework.response import Response

from accounts.http import api_user
from briefs import access
from briefs import selectors as selectors_briefs
from briefs.models import TrafficTrace
from briefs.services import traces as services_traces
from core.api.permissions import StaffOnly
from core.roles import STAFF_ROLES


class TraceInputSerializer(serializers.Serializer[TrafficTrace]):
    file = serializers.FileField()
    window = serializers.ChoiceField(choices=TrafficTrace.Window.choices)


class TraceOutputSerializer(serializers.ModelSerializer[TrafficTrace]):
    uploaded_by = serializers.CharField(source="uploaded_by.username", read_only=True)

    class Meta:
        model = TrafficTrace
        fields = [
            "id",
            "brief",
            "window",
            "original_name",
            "sha256",
            "size_bytes",
            "status",
            "progress",
            "error",
            "layout",
            "requests",
            "span_s",
            "started_at",
            "summary",
            "uploaded_by",
            "created_at",
            "read_at",
        ]
        read_only_fields = fields


class BriefTracesApi(GenericAPIView[TrafficTrace]):
    """GET: the brief's traces, newest first. POST (multipart): upload one (202: read on a
    worker)."""

    permission_classes = [StaffOnly]
    read_roles = STAFF_ROLES
    write_roles = access.TRACE_UPLOADERS
    serializer_class = TraceOutputSerializer
    parser_classes = [MultiPartParser, FormParser]
    pagination_class = None

    def get_queryset(self) -> QuerySet[TrafficTrace]:
        return TrafficTrace.objects.none()

    @extend_schema(responses=TraceOutputSerializer(many=True))
    def get(self, request: Request, pk: int) -> Response:
        brief = selectors_briefs.brief_get(api_user(request), pk)
        traces = selectors_briefs.traces_of(brief)
        return Response(TraceOutputSerializer(traces, many=True).data)

    @extend_schema(request=TraceInputSerializer, responses={202: TraceOutputSerializer})
    def post(self, request: Request, pk: int) -> Response:
        brief = selectors_briefs.brief_get(api_user(request), pk)
        serializer = TraceInputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        trace = services_traces.traffic_trace_upload(
            brief=brief,
            upload=serializer.validated_data["file"],
            window=serializer.validated_data["window"],
            acting_user=api_user(request),
        )
        return Response(TraceOutputSerializer(trace).data, status=status.HTTP_202_ACCEPTED)
