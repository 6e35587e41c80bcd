"""API v1 routes: comparisons (reviews and exports live in urls_reviews)."""

from django.urls import URLPattern, path

from procurement.api import comparisons

urlpatterns: list[URLPattern] = [
    path("comparisons/", comparisons.ComparisonListApi.as_view(), name="api-comparison-list"),
    path(
        "comparisons/<int:pk>/",
        comparisons.ComparisonDetailApi.as_view(),
        name="api-comparison-detail",
    ),
    path(
        "comparisons/<int:pk>/retry/",
        comparisons.ComparisonRetryApi.as_view(),
        name="api-comparison-retry",
    ),
    path(
        "comparisons/<int:pk>/recompute/",
        comparisons.ComparisonRecomputeApi.as_view(),
        name="api-comparison-recompute",
    ),
]
