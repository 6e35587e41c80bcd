"""API v1 routes: comparisons."""

from django.urls import URLPattern

urlpatterns: list[URLPattern] = []
