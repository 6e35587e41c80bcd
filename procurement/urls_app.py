"""HTML routes of the decision app, one module per area (briefs, comparisons, reviews, audit)."""

from procurement import urls_audit, urls_briefs, urls_comparisons, urls_reviews

app_name = "procurement"
urlpatterns = [
    *urls_briefs.urlpatterns,
    *urls_comparisons.urlpatterns,
    *urls_reviews.urlpatterns,
    *urls_audit.urlpatterns,
]
