"""Vendor portal routes: my RFQs, submit, revise and withdraw quotes."""

from django.urls import path

from catalog import views_vendor

app_name = "vendor"
urlpatterns = [
    path("", views_vendor.vendor_home, name="home"),
    path("rfqs/<int:pk>/", views_vendor.vendor_rfq_detail, name="rfq-detail"),
    path("rfqs/<int:rfq_pk>/quote/", views_vendor.vendor_quote_create, name="quote-create"),
    path("quotes/<int:pk>/", views_vendor.vendor_quote_detail, name="quote-detail"),
    path("quotes/<int:pk>/revise/", views_vendor.vendor_quote_revise, name="quote-revise"),
    path("quotes/<int:pk>/withdraw/", views_vendor.vendor_quote_withdraw, name="quote-withdraw"),
]
