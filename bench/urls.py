"""The product's routes plus /bench/baseline/: a minimal session-authenticated Django view
doing one query, the yardstick the dashboard's requests/s is measured against."""

from django.contrib.auth import get_user_model
from django.http import HttpRequest, HttpResponse
from django.urls import include, path


def baseline(request: HttpRequest) -> HttpResponse:
    """Session + user lookup (the middleware), one query, a tiny response."""
    count = get_user_model().objects.filter(is_active=True).count()
    return HttpResponse(f"ok {count}", content_type="text/plain")


urlpatterns = [
    path("bench/baseline/", baseline, name="bench-baseline"),
    path("", include("config.urls")),
]
