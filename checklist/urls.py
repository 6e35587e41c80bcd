"""HTML routes of the checklist app."""

from django.urls import URLPattern

app_name = "checklist"
urlpatterns: list[URLPattern] = []
