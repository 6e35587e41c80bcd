"""API v1 routes: reviews and exports of comparisons."""

from django.urls import URLPattern

urlpatterns: list[URLPattern] = []
