"""HTML routes: finance review, side-by-side view, decision record."""

from django.urls import path

from procurement.views import reviews

urlpatterns = [
    path("comparisons/<int:pk>/review/", reviews.comparison_review, name="comparison-review"),
    path(
        "comparisons/<int:pk>/side-by-side/",
        reviews.comparison_side_by_side,
        name="comparison-side-by-side",
    ),
    path("comparisons/<int:pk>/record/", reviews.comparison_record, name="comparison-record"),
]
