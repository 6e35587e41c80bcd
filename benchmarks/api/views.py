"""/api/v1/benchmark-results/: upload (multipart, token auth for scripts), list, read.

Platform engineers, leads and admins upload; staff read; vendors get 404 on every route.
No PUT, PATCH or DELETE: results are evidence and history stays.
"""

from __future__ import annotations

from typing import Any

import django_filters
from django.db.models import QuerySet
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import exceptions, serializers, status
from rest_framework.generics import ListAPIView, RetrieveAPIView
from rest_framework.negotiation import DefaultContentNegotiation
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.settings import api_settings
from rest_framework.views import APIView

from accounts.http import api_user
from benchmarks import access, services
from benchmarks.api.serializers import (
    BenchmarkResultBatchInputSerializer,
    BenchmarkResultInputSerializer,
    BenchmarkResultOutputSerializer,
)
from benchmarks.models import BenchmarkResult
from benchmarks.upload_handlers import (
    declared_length_too_large,
    install_capped_handler,
)
from core.api.parsers import SafeFormParser, SafeMultiPartParser
from core.api.permissions import HasRole
from core.db_limits import IdFilter
from core.roles import STAFF_ROLES, is_staff

FILE_STATUSES = ("created", "existing", "refused")


class BenchmarkPermission(HasRole):
    """HasRole, but anyone who is not staff gets 404: these routes do not exist for them."""

    def has_permission(self, request: Request, view: Any) -> bool:
        if request.user and request.user.is_authenticated and not is_staff(request.user):
            raise exceptions.NotFound()
        return super().has_permission(request, view)


class _NoFormatOverride:
    """DRF settings, except that `?format=` is not a renderer override here."""

    URL_FORMAT_OVERRIDE = None

    def __getattr__(self, name: str) -> Any:
        return getattr(api_settings, name)


class FormatFilterNegotiation(DefaultContentNegotiation):
    """On this endpoint `?format=vllm-serve` filters by file format (the issue's contract)."""

    settings = _NoFormatOverride()  # type: ignore[assignment]  # duck-types api_settings


class ResultFilter(django_filters.FilterSet):
    quote = IdFilter(field_name="quote_id")
    brief = IdFilter(field_name="brief_id")
    accelerator = django_filters.CharFilter(method="filter_accelerator", help_text="slug or id")
    status = django_filters.ChoiceFilter(choices=BenchmarkResult.Status.choices)
    format = django_filters.CharFilter(field_name="format_id")

    class Meta:
        model = BenchmarkResult
        fields = ["quote", "brief", "accelerator", "status", "format"]

    def filter_accelerator(self, queryset: Any, name: str, value: str) -> Any:
        if value.isdigit():
            return queryset.filter(accelerator_id=int(value))
        return queryset.filter(accelerator__slug=value)


def _reject_too_large(request: Request, size: int | None) -> None:
    raise services.benchmark_upload_too_large(acting_user=api_user(request), size=size)


class CappedUploadView(APIView):
    """Before anything reads the body: stream files to disk, stop once past the cap (the cap
    holds for the whole request, whatever the number of files). Uploaders write, staff read."""

    permission_classes = [BenchmarkPermission]
    read_roles = STAFF_ROLES
    write_roles = access.BENCHMARK_UPLOADERS
    parser_classes = [SafeMultiPartParser, SafeFormParser]
    upload_handler: Any = None

    def initialize_request(self, request: Any, *args: Any, **kwargs: Any) -> Request:
        self.upload_handler = install_capped_handler(request) if request.method == "POST" else None
        return super().initialize_request(request, *args, **kwargs)

    def initial(self, request: Request, *args: Any, **kwargs: Any) -> None:
        super().initial(request, *args, **kwargs)  # authentication and role first
        if request.method == "POST" and declared_length_too_large(request._request):
            _reject_too_large(request, int(request.META["CONTENT_LENGTH"]))

    def read_input(
        self, request: Request, serializer_class: type[serializers.Serializer[None]]
    ) -> tuple[Any, dict[str, Any]]:
        """The uploaded file(s) and the other fields, once the whole body streamed in."""
        data = request.data
        if self.upload_handler is not None and self.upload_handler.too_large:
            _reject_too_large(request, self.upload_handler.received)
        inp = serializer_class(data=data)
        inp.is_valid(raise_exception=True)
        values = dict(inp.validated_data)
        return values.pop("file"), values


class BenchmarkResultListCreateApi(CappedUploadView, ListAPIView[BenchmarkResult]):
    """GET: results (filters quote, accelerator, brief, status, format). POST: upload a file."""

    serializer_class = BenchmarkResultOutputSerializer
    filterset_class = ResultFilter
    content_negotiation_class = FormatFilterNegotiation
    ordering_fields = ["created_at", "id"]
    http_method_names = ["get", "post", "head", "options"]

    def get_queryset(self) -> QuerySet[BenchmarkResult]:
        if getattr(self, "swagger_fake_view", False):  # the schema: no signed-in user
            return BenchmarkResult.objects.none()
        return (
            access.results_for(api_user(self.request))
            .select_related("brief__model", "model_profile")
            .order_by("-created_at", "-id")
        )

    @extend_schema(
        request={"multipart/form-data": BenchmarkResultInputSerializer},
        responses={
            201: BenchmarkResultOutputSerializer,
            200: OpenApiResponse(BenchmarkResultOutputSerializer, "Same bytes uploaded before"),
            400: OpenApiResponse(description="Unrecognised or malformed file; nothing saved"),
            413: OpenApiResponse(description="Over BENCHMARK_UPLOAD_MAX_BYTES; nothing saved"),
        },
    )
    def post(self, request: Request) -> Response:
        upload, values = self.read_input(request, BenchmarkResultInputSerializer)
        outcome = services.benchmark_result_ingest(
            acting_user=api_user(request), upload=upload, meta=services.UploadMeta(**values)
        )
        body = BenchmarkResultOutputSerializer(outcome.result, context={"request": request}).data
        code = status.HTTP_201_CREATED if outcome.created else status.HTTP_200_OK
        headers = {"Location": f"/api/v1/benchmark-results/{outcome.result.pk}/"}
        return Response(body, status=code, headers=headers)


class BenchmarkResultBatchApi(CappedUploadView):
    """POST several files at once (the files of one sweep) with one set of fields."""

    http_method_names = ["post", "options"]

    @extend_schema(
        request={"multipart/form-data": BenchmarkResultBatchInputSerializer},
        responses={
            201: OpenApiResponse(description="At least one file stored; `files` says each"),
            200: OpenApiResponse(description="None stored now, some stored before"),
            400: OpenApiResponse(description="Every file refused, or the fields are wrong"),
            413: OpenApiResponse(description="The request is over BENCHMARK_UPLOAD_MAX_BYTES"),
        },
    )
    def post(self, request: Request) -> Response:
        uploads, values = self.read_input(request, BenchmarkResultBatchInputSerializer)
        outcomes = services.benchmark_results_ingest_many(
            acting_user=api_user(request), uploads=uploads, meta=services.UploadMeta(**values)
        )
        files = [self._file(outcome, request) for outcome in outcomes]
        counts = {s: sum(1 for f in files if f["status"] == s) for s in FILE_STATUSES}
        code = (
            status.HTTP_201_CREATED
            if counts["created"]
            else status.HTTP_200_OK
            if counts["existing"]
            else status.HTTP_400_BAD_REQUEST
        )
        return Response({"sweep": values.get("sweep", ""), **counts, "files": files}, status=code)

    @staticmethod
    def _file(outcome: services.FileOutcome, request: Request) -> dict[str, Any]:
        out: dict[str, Any] = {"name": outcome.filename, "status": outcome.status}
        if outcome.result is not None:
            context = {"request": request}
            out["result"] = BenchmarkResultOutputSerializer(outcome.result, context=context).data
        return out | outcome.refusal_fields()


class BenchmarkResultDetailApi(RetrieveAPIView[BenchmarkResult]):
    """Status, progress, format, metrics, discrepancies and error of one result."""

    permission_classes = [BenchmarkPermission]
    read_roles = STAFF_ROLES
    write_roles = access.BENCHMARK_UPLOADERS  # so other methods answer 405, not 403
    serializer_class = BenchmarkResultOutputSerializer
    lookup_url_kwarg = "result_id"
    http_method_names = ["get", "head", "options"]

    def get_queryset(self) -> QuerySet[BenchmarkResult]:
        if getattr(self, "swagger_fake_view", False):  # the schema: no signed-in user
            return BenchmarkResult.objects.none()
        return access.results_for(api_user(self.request)).select_related(
            "brief__model", "model_profile"
        )
