"""HTML routes of the FinOps app."""

from django.urls import path

from finops import views

app_name = "finops"
urlpatterns = [
    path("", views.decision_list, name="decision-list"),
    path("decisions/<int:pk>/", views.decision_detail, name="decision-detail"),
    path(
        "decisions/<int:pk>/focus/commitments/", views.focus_commitments, name="focus-commitments"
    ),
    path("decisions/<int:pk>/focus/prices/", views.focus_prices, name="focus-prices"),
    path("decisions/<int:pk>/bills/", views.billing_import_new, name="billing-import-new"),
    path("decisions/<int:pk>/outputs/", views.actuals_new, name="actuals-new"),
    path("decisions/<int:pk>/outputs/upload/", views.actuals_upload, name="actuals-upload"),
]
