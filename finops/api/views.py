"""API twins of a decision's FinOps page: its FOCUS export, its bills, its accepted outputs and
the reconciliation of its months, forecast against actual. The same services and checks as the
page: a FinOps tool pulls decisions, a script pushes a month's bill."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from django.http import HttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import serializers, status
from rest_framework.negotiation import BaseContentNegotiation
from rest_framework.parsers import FormParser, MultiPartParser
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.http import api_user
from finops import access, selectors, services
from finops.focus.actuals import MonthCount
from finops.models import ActualOutputs, BillingImport, Reconciliation
from procurement.models import Comparison


class ReconciliationMonthSerializer(serializers.ModelSerializer[Reconciliation]):
    # A calendar month, "2026-05": a string, not a date (there is no day in it).
    month = serializers.SerializerMethodField()

    class Meta:
        model = Reconciliation
        # Every field of the month, in the model's order (`month` first, as declared here).
        exclude = ["id", "comparison", "billing_import", "actual_outputs", "computed_at"]
        extra_kwargs = {
            "vendors": {
                "help_text": (
                    "A plan across offers: each vendor's month (provider, parts, "
                    "forecast_spend_usd, actual_spend_usd, spend_ratio, forecast_gpu_hours, "
                    "gpu_hours, billing_import, drift); [] for a decision on one row."
                )
            }
        }

    def get_month(self, row: Reconciliation) -> str:
        return row.month.strftime("%Y-%m")


class ReconciliationEnvelopeSerializer(serializers.Serializer[None]):
    comparison = serializers.IntegerField()
    status = serializers.CharField()
    months = ReconciliationMonthSerializer(many=True)


# Every write of a decision's FinOps data waits for the decision (services._approved).
NOT_A_DECISION = OpenApiResponse(description="The comparison is not an approved decision.")


def reconciliation_body(comparison: Comparison) -> dict[str, Any]:
    """Every reconciled month of a comparison, as the reconciliation API answers it."""
    rows = selectors.reconciliations_of(comparison)
    return {
        "comparison": comparison.pk,
        "status": comparison.status,
        "months": ReconciliationMonthSerializer(rows, many=True).data,
    }


class ReconciliationApi(APIView):
    """GET: every reconciled month of a comparison (none until it is approved and billed)."""

    @extend_schema(
        responses=ReconciliationEnvelopeSerializer, operation_id="v1_finops_reconciliation"
    )
    def get(self, request: Request, pk: int) -> Response:
        comparison = access.access_comparison(api_user(request), pk)
        return Response(reconciliation_body(comparison))


class FileNegotiation(BaseContentNegotiation):
    """The file's own format is asked with `?format=` (as on the page), which DRF would read as
    a renderer's name: the view answers a file, so the first renderer serves its errors."""

    def select_parser(self, request: Request, parsers: Any) -> Any:
        return parsers[0]

    def select_renderer(
        self, request: Request, renderers: Any, format_suffix: str | None = None
    ) -> tuple[Any, str]:
        return renderers[0], renderers[0].media_type


class FocusExportApi(APIView):
    """GET a decision's FOCUS commitments or prices (`?format=csv`, the default, or
    `parquet`): the same file as the decision page's download, audited; 409 before approval."""

    content_negotiation_class = FileNegotiation
    dataset = "commitments"  # set per route

    @extend_schema(
        responses={
            (200, "text/csv"): OpenApiTypes.BINARY,
            (200, "application/vnd.apache.parquet"): OpenApiTypes.BINARY,
            409: NOT_A_DECISION,
        },
        parameters=[
            OpenApiParameter("format", str, enum=sorted(services.FOCUS_FORMATS), required=False)
        ],
    )
    def get(self, request: Request, pk: int) -> HttpResponse:
        comparison = access.access_comparison(api_user(request), pk)
        focus = services.focus_export(
            acting_user=api_user(request),
            comparison=comparison,
            dataset=self.dataset,
            file_format=request.query_params.get("format", "csv"),
        )
        response = HttpResponse(focus.body, content_type=focus.content_type)
        response["Content-Disposition"] = f'attachment; filename="{focus.filename}"'
        return response


class BillingImportInputSerializer(serializers.Serializer[BillingImport]):
    file = serializers.FileField(help_text="The provider's FOCUS bill (CSV or Parquet).")
    month = serializers.DateField(help_text="Any day of the billing month (UTC).")
    provider_names = serializers.ListField(
        child=serializers.CharField(max_length=120), min_length=1, max_length=20
    )
    account_ids = serializers.CharField(required=False, allow_blank=True, max_length=4000)
    tags = serializers.CharField(required=False, allow_blank=True, max_length=4000)
    sku_ids = serializers.CharField(required=False, allow_blank=True, max_length=4000)
    resource_ids = serializers.CharField(required=False, allow_blank=True, max_length=4000)
    gpus_per_instance = serializers.IntegerField(required=False, min_value=1, max_value=1024)


class BillingImportSerializer(serializers.ModelSerializer[BillingImport]):
    month = serializers.SerializerMethodField()

    class Meta:
        model = BillingImport
        fields = [
            "id",
            "month",
            "original_name",
            "status",
            "progress",
            "error",
            "provider_names",
            "account_ids",
            "tags",
            "sku_ids",
            "resource_ids",
            "gpus_per_instance",
            "rows_total",
            "rows_matched",
            "rows_unmatched",
            "gpu_hours",
            "gpu_cost_usd",
            "other_cost_usd",
            "unmatched_cost_usd",
            "unmatched_by_reason",
            "by_provider",
            "created_at",
        ]
        read_only_fields = fields

    def get_month(self, job: BillingImport) -> str:
        return job.month.strftime("%Y-%m")


class BillingImportsApi(APIView):
    """GET a decision's bill imports; POST (multipart) one month's FOCUS bill: 202, matched
    and reconciled on a worker (poll `status`). The same checks as the decision page."""

    parser_classes = [MultiPartParser, FormParser]

    @extend_schema(
        responses=BillingImportSerializer(many=True), operation_id="v1_finops_bills_list"
    )
    def get(self, request: Request, pk: int) -> Response:
        comparison = access.access_comparison(api_user(request), pk)
        jobs = selectors.imports_of(comparison)
        return Response(BillingImportSerializer(jobs, many=True).data)

    @extend_schema(
        request=BillingImportInputSerializer,
        responses={
            202: BillingImportSerializer,
            409: NOT_A_DECISION,
        },
        operation_id="v1_finops_bills_create",
    )
    def post(self, request: Request, pk: int) -> Response:
        comparison = access.access_comparison(api_user(request), pk)
        services.billing_import_check(acting_user=api_user(request), comparison=comparison)
        serializer = BillingImportInputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        job = services.billing_import_submit(
            acting_user=api_user(request), comparison=comparison, data=serializer.validated_data
        )
        return Response(BillingImportSerializer(job).data, status=status.HTTP_202_ACCEPTED)


class MonthCountSerializer(serializers.Serializer[MonthCount]):
    month = serializers.DateField(help_text="Any day of the month (UTC).")
    accepted_outputs = serializers.DecimalField(
        max_digits=24, decimal_places=4, min_value=Decimal(0)
    )
    acceptance_share = serializers.DecimalField(
        max_digits=7,
        decimal_places=6,
        min_value=Decimal("0.000001"),
        max_value=Decimal(1),
        help_text="Accepted / completed outputs, as the team measured it (0.92 for 92 %).",
    )


class AcceptedOutputsInputSerializer(serializers.Serializer[None]):
    months = serializers.ListField(child=MonthCountSerializer(), allow_empty=False, max_length=120)


class AcceptedOutputsApi(APIView):
    """POST a decision's accepted outputs for one or more months (as the page's form): 201
    with the reconciliation of every month so far."""

    @extend_schema(
        request=AcceptedOutputsInputSerializer,
        responses={
            201: ReconciliationEnvelopeSerializer,
            409: NOT_A_DECISION,
        },
        operation_id="v1_finops_outputs_create",
    )
    def post(self, request: Request, pk: int) -> Response:
        comparison = access.access_comparison(api_user(request), pk)
        services.actual_outputs_check(acting_user=api_user(request), comparison=comparison)
        serializer = AcceptedOutputsInputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        counts = [
            MonthCount(m["month"].replace(day=1), m["accepted_outputs"], m["acceptance_share"])
            for m in serializer.validated_data["months"]
        ]
        services.actual_outputs_record(
            acting_user=api_user(request),
            comparison=comparison,
            counts=counts,
            source=ActualOutputs.Source.API,
        )
        return Response(reconciliation_body(comparison), status=status.HTTP_201_CREATED)
