"""API v1 routes of the FinOps app."""

from django.urls import URLPattern, path

from finops.api import views

urlpatterns: list[URLPattern] = [
    path(
        "finops/decisions/<int:pk>/reconciliation/",
        views.ReconciliationApi.as_view(),
        name="api-finops-reconciliation",
    ),
]
