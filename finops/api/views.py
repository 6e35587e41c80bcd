"""API twin of the reconciliation page: a decision's months, forecast against actual."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.http import api_user
from finops import access, selectors
from finops.models import Reconciliation


class ReconciliationMonthSerializer(serializers.ModelSerializer[Reconciliation]):
    # A calendar month, "2026-05": a string, not a date (there is no day in it).
    month = serializers.SerializerMethodField()

    class Meta:
        model = Reconciliation
        fields = [
            "month",
            "forecast_spend_usd",
            "actual_spend_usd",
            "forecast_accepted_outputs",
            "actual_accepted_outputs",
            "forecast_unit_cost_usd",
            "actual_unit_cost_usd",
            "cost_ratio",
            "forecast_utilisation",
            "actual_utilisation",
            "forecast_acceptance",
            "actual_acceptance",
            "drivers",
            "note",
            "tolerance",
            "drift",
        ]

    def get_month(self, row: Reconciliation) -> str:
        return row.month.strftime("%Y-%m")


class ReconciliationEnvelopeSerializer(serializers.Serializer[None]):
    comparison = serializers.IntegerField()
    status = serializers.CharField()
    months = ReconciliationMonthSerializer(many=True)


class ReconciliationApi(APIView):
    """GET: every reconciled month of a comparison (none until it is approved and billed)."""

    @extend_schema(
        responses=ReconciliationEnvelopeSerializer, operation_id="v1_finops_reconciliation"
    )
    def get(self, request: Request, pk: int) -> Response:
        comparison = access.access_comparison(api_user(request), pk)
        rows = selectors.reconciliations_of(comparison)
        return Response(
            {
                "comparison": comparison.pk,
                "status": comparison.status,
                "months": ReconciliationMonthSerializer(rows, many=True).data,
            }
        )
