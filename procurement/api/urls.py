"""API v1 routes of the decisions app: comparisons, their reviews and exports, the audit trail."""

from django.urls import URLPattern, path

from procurement.api import comparisons, reviews

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
    path(
        "comparisons/<int:pk>/reviews/",
        reviews.ComparisonReviewsApi.as_view(),
        name="api-comparison-reviews",
    ),
    path(
        "comparisons/<int:pk>/export.csv",
        reviews.ComparisonExportCsvApi.as_view(),
        name="api-comparison-export-csv",
    ),
    path(
        "comparisons/<int:pk>/export.xlsx",
        reviews.ComparisonExportXlsxApi.as_view(),
        name="api-comparison-export-xlsx",
    ),
    path(
        "audit-events/",
        reviews.AuditEventViewSet.as_view({"get": "list"}),
        name="api-audit-event-list",
    ),
    path(
        "audit-events/<int:pk>/",
        reviews.AuditEventViewSet.as_view({"get": "retrieve"}),
        name="api-audit-event-detail",
    ),
]
