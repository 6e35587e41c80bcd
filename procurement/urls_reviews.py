"""HTML routes: reviews."""

from django.urls import URLPattern

urlpatterns: list[URLPattern] = []
