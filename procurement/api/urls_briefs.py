"""API v1 routes: briefs."""

from django.urls import URLPattern

urlpatterns: list[URLPattern] = []
