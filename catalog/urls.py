"""HTML routes of the catalog app."""

from django.urls import URLPattern

app_name = "catalog"
urlpatterns: list[URLPattern] = []
