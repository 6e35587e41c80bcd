"""Root URL configuration."""

from django.contrib import admin
from django.contrib.auth.decorators import login_required
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerSplitView

from procurement.views import dashboard

urlpatterns = [
    path("", dashboard.dashboard, name="dashboard"),
    path("healthz", dashboard.healthz, name="healthz"),
    path("system/worker-probe/", dashboard.worker_probe, name="worker-probe"),
    path("accounts/", include("accounts.urls")),
    path("", include("procurement.urls_app")),
    path("catalog/", include("catalog.urls")),
    path("vendor/", include("catalog.urls_vendor")),
    path("checklist/", include("checklist.urls")),
    path("benchmarks/", include("benchmarks.urls")),
    path("api/v1/", include("procurement.api.urls")),
    path("api/schema/", SpectacularAPIView.as_view(), name="api-schema"),
    path(
        "api/docs/",
        login_required(SpectacularSwaggerSplitView.as_view(url_name="api-schema")),
        name="api-docs",
    ),
    path("admin/", admin.site.urls),
]
