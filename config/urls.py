"""Root URL configuration: each app's HTML routes, and under /api/v1/ each app's API routes."""

from django.contrib import admin
from django.contrib.auth.decorators import login_required
from django.urls import URLPattern, URLResolver, include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerSplitView

from catalog import urls as catalog_urls
from core.api.root import ApiRootApi
from procurement.views import dashboard

api_v1: list[URLPattern | URLResolver] = [
    path("", ApiRootApi.as_view(), name="api-root"),
    path("", include("accounts.api.urls")),
    path("", include("catalog.api.urls")),
    path("", include("checklist.api.urls")),
    path("", include("briefs.api.urls")),
    path("", include("benchmarks.api.urls")),
    path("", include("procurement.api.urls")),
    path("", include("finops.api.urls")),
]

urlpatterns = [
    path("", dashboard.dashboard, name="dashboard"),
    path("healthz", dashboard.healthz, name="healthz"),
    path("system/worker-probe/", dashboard.worker_probe, name="worker-probe"),
    path("accounts/", include("accounts.urls")),
    path("catalog/", include("catalog.urls")),
    path("vendor/", include((catalog_urls.vendor_urlpatterns, "vendor"))),
    path("checklist/", include("checklist.urls")),
    path("briefs/", include("briefs.urls")),
    path("benchmarks/", include("benchmarks.urls")),
    path("", include("procurement.urls")),
    path("finops/", include("finops.urls")),
    path("api/v1/", include(api_v1)),
    path("api/schema/", SpectacularAPIView.as_view(), name="api-schema"),
    path(
        "api/docs/",
        login_required(SpectacularSwaggerSplitView.as_view(url_name="api-schema")),
        name="api-docs",
    ),
    path("admin/", admin.site.urls),
]
