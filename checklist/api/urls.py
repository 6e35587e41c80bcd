"""API v1 routes of the checklist app."""

from django.urls import URLPattern

urlpatterns: list[URLPattern] = []
