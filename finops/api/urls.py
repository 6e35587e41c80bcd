"""API v1 routes of the FinOps app."""

from django.urls import URLPattern, path

from finops.api import views

urlpatterns: list[URLPattern] = [
    path(
        "finops/decisions/<int:pk>/reconciliation/",
        views.ReconciliationApi.as_view(),
        name="api-finops-reconciliation",
    ),
    path(
        "finops/decisions/<int:pk>/focus/commitments/",
        views.FocusExportApi.as_view(dataset="commitments"),
        name="api-finops-focus-commitments",
    ),
    path(
        "finops/decisions/<int:pk>/focus/prices/",
        views.FocusExportApi.as_view(dataset="prices"),
        name="api-finops-focus-prices",
    ),
    path(
        "finops/decisions/<int:pk>/bills/",
        views.BillingImportsApi.as_view(),
        name="api-finops-bills",
    ),
    path(
        "finops/decisions/<int:pk>/outputs/",
        views.AcceptedOutputsApi.as_view(),
        name="api-finops-outputs",
    ),
]
