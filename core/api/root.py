"""GET /api/v1/: what the API offers, with links."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

ENDPOINTS = {
    "accelerators": "accelerators/",
    "models": "models/",
    "providers": "providers/",
    "quotes": "quotes/",
    "api_routes": "api-routes/",
    "fx_rates": "fx-rates/",
    "rfqs": "rfqs/",
    "briefs": "briefs/",
    "memory_fit": "memory-fit/",
    "benchmark_results": "benchmark-results/",
    "comparisons": "comparisons/",
    "auth_token": "auth/token/",
}


class ApiRootApi(APIView):
    @extend_schema(
        responses={
            200: inline_serializer("ApiRoot", {k: serializers.URLField() for k in ENDPOINTS})
        }
    )
    def get(self, request: Request) -> Response:
        base = request.build_absolute_uri("/api/v1/")
        return Response({name: base + suffix for name, suffix in ENDPOINTS.items()})
