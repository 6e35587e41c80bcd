"""/api/v1/: the root, token auth, and each app's routes."""

from django.urls import include, path

from accounts.api import TokenObtainApi
from procurement.api import root

urlpatterns = [
    path("", root.ApiRootApi.as_view(), name="api-root"),
    path("auth/token/", TokenObtainApi.as_view(), name="api-token"),
    path("", include("catalog.api.urls")),
    path("", include("checklist.api.urls")),
    path("", include("benchmarks.api.urls")),
    path("", include("procurement.api.urls_briefs")),
    path("", include("procurement.api.urls_comparisons")),
    path("", include("procurement.api.urls_reviews")),
]
