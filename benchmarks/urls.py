"""HTML routes of the benchmarks app."""

from django.urls import URLPattern

app_name = "benchmarks"
urlpatterns: list[URLPattern] = []
