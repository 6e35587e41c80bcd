from django.apps import AppConfig


class CatalogConfig(AppConfig):
    """Accelerators, model profiles, quotes, model API routes, FX rates and RFQs."""

    name = "catalog"
