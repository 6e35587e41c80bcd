"""Vendor portal routes: my RFQs, submit and revise quotes, answer the checklist."""

from django.urls import URLPattern

app_name = "vendor"
urlpatterns: list[URLPattern] = []
