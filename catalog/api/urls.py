"""API v1 routes of the catalog app (mounted under /api/v1/)."""

from rest_framework.routers import SimpleRouter

from catalog.api import views

router = SimpleRouter()
router.register("accelerators", views.AcceleratorViewSet, basename="accelerator")
router.register("models", views.ModelProfileViewSet, basename="model-profile")
router.register("providers", views.ProviderViewSet, basename="provider")
router.register("quotes", views.QuoteViewSet, basename="quote")
router.register("api-routes", views.ApiRouteViewSet, basename="api-route")
router.register("fx-rates", views.FxRateViewSet, basename="fx-rate")
router.register("rfqs", views.RfqViewSet, basename="rfq")
router.register("catalog-imports", views.CatalogImportViewSet, basename="catalog-import")

urlpatterns = router.urls
