"""HTML routes of the decisions app: comparisons, their review and record, the audit trail."""

from django.urls import path

from procurement.views import audit, comparisons, reviews

app_name = "procurement"
urlpatterns = [
    path("comparisons/", comparisons.comparison_list, name="comparison-list"),
    path("comparisons/new/", comparisons.comparison_new, name="comparison-new"),
    path("comparisons/<int:pk>/", comparisons.comparison_detail, name="comparison-detail"),
    path("comparisons/<int:pk>/retry/", comparisons.comparison_retry, name="comparison-retry"),
    path(
        "comparisons/<int:pk>/recompute/",
        comparisons.comparison_recompute,
        name="comparison-recompute",
    ),
    path("comparisons/<int:pk>/review/", reviews.comparison_review, name="comparison-review"),
    path(
        "comparisons/<int:pk>/side-by-side/",
        reviews.comparison_side_by_side,
        name="comparison-side-by-side",
    ),
    path("comparisons/<int:pk>/record/", reviews.comparison_record, name="comparison-record"),
    path(
        "comparisons/<int:pk>/price-changes/<int:flag_pk>/acknowledge/",
        reviews.price_change_acknowledge,
        name="price-change-acknowledge",
    ),
    path("audit/", audit.audit_list, name="audit-list"),
]
