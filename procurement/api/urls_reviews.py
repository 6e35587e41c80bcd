"""API v1 routes: reviews and exports of comparisons, and the read-only audit trail."""

from django.urls import path

from procurement.api import reviews

urlpatterns = [
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
