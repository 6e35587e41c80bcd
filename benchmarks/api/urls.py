"""API v1 routes of the benchmarks app."""

from django.urls import path

from benchmarks.api.views import (
    BenchmarkResultBatchApi,
    BenchmarkResultDetailApi,
    BenchmarkResultListCreateApi,
)

urlpatterns = [
    path(
        "benchmark-results/",
        BenchmarkResultListCreateApi.as_view(),
        name="api-benchmark-results",
    ),
    path(
        "benchmark-results/batch/",
        BenchmarkResultBatchApi.as_view(),
        name="api-benchmark-results-batch",
    ),
    path(
        "benchmark-results/<int:result_id>/",
        BenchmarkResultDetailApi.as_view(),
        name="api-benchmark-result-detail",
    ),
]
