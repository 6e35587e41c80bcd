"""API v1 routes of the catalog app."""

from django.urls import URLPattern

urlpatterns: list[URLPattern] = []
