"""API v1 routes of the benchmarks app."""

from django.urls import URLPattern

urlpatterns: list[URLPattern] = []
