"""HTML routes of the catalog app: staff pages (vendors get 404 there) and the vendor portal.

`urlpatterns` is mounted at /catalog/ (namespace `catalog`), `vendor_urlpatterns` at /vendor/
(namespace `vendor`).
"""

from django.urls import path

from catalog.views import catalog, imports, quotes, reference, rfqs, vendor

app_name = "catalog"
urlpatterns = [
    path("", catalog.accelerator_list, name="accelerator-list"),
    path("compare/", catalog.accelerator_compare, name="compare"),
    path("accelerators/<slug:slug>/", catalog.accelerator_detail, name="accelerator-detail"),
    path("models/", catalog.model_list, name="model-list"),
    path("models/new/", catalog.model_create, name="model-create"),
    path("quotes/", quotes.quote_list, name="quote-list"),
    path("quotes/new/", quotes.quote_create, name="quote-create"),
    path("quotes/<int:pk>/", quotes.quote_detail, name="quote-detail"),
    path("quotes/<int:pk>/revise/", quotes.quote_revise, name="quote-revise"),
    path("quotes/<int:pk>/withdraw/", quotes.quote_withdraw, name="quote-withdraw"),
    path("rfqs/", rfqs.rfq_list, name="rfq-list"),
    path("rfqs/new/", rfqs.rfq_create, name="rfq-create"),
    path("rfqs/<int:pk>/", rfqs.rfq_detail, name="rfq-detail"),
    path("rfqs/<int:pk>/reopen/", rfqs.rfq_reopen, name="rfq-reopen"),
    path("rfqs/<int:pk>/close/", rfqs.rfq_close, name="rfq-close"),
    path("providers/", reference.provider_list, name="provider-list"),
    path("providers/new/", reference.provider_create, name="provider-create"),
    path("api-routes/", reference.api_route_list, name="api-route-list"),
    path("api-routes/new/", reference.api_route_create, name="api-route-create"),
    path("fx/", reference.fx_list, name="fx-list"),
    path("fx/new/", reference.fx_create, name="fx-create"),
    path("import/", imports.import_page, name="import"),
    path("import/template.csv", imports.import_template, name="import-template"),
    path("import/jobs/<int:pk>/", imports.import_job, name="import-job"),
]

vendor_urlpatterns = [
    path("", vendor.vendor_home, name="home"),
    path("rfqs/<int:pk>/", vendor.vendor_rfq_detail, name="rfq-detail"),
    path("rfqs/<int:rfq_pk>/quote/", vendor.vendor_quote_create, name="quote-create"),
    path("quotes/<int:pk>/", vendor.vendor_quote_detail, name="quote-detail"),
    path("quotes/<int:pk>/revise/", vendor.vendor_quote_revise, name="quote-revise"),
    path("quotes/<int:pk>/withdraw/", vendor.vendor_quote_withdraw, name="quote-withdraw"),
]
