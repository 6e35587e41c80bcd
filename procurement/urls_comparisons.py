"""HTML routes: comparisons (included in the `procurement` namespace)."""

from django.urls import URLPattern, path

from procurement.views import comparisons

urlpatterns: list[URLPattern] = [
    path("comparisons/", comparisons.comparison_list, name="comparison-list"),
    path("comparisons/new/", comparisons.comparison_new, name="comparison-new"),
    path("comparisons/<int:pk>/", comparisons.comparison_detail, name="comparison-detail"),
    path("comparisons/<int:pk>/retry/", comparisons.comparison_retry, name="comparison-retry"),
    path(
        "comparisons/<int:pk>/recompute/",
        comparisons.comparison_recompute,
        name="comparison-recompute",
    ),
]
