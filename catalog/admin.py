"""Admin for catalog reference data, read-only: prices, specs and quotes change through
the services, as new versions with audit events (ADR 0001), never by an edit in place."""

from __future__ import annotations

from django.contrib import admin

from catalog.models import (
    Accelerator,
    CatalogImportJob,
    FxRate,
    ModelApiRoute,
    ModelProfile,
    Quote,
    Rfq,
)
from core.admin import ReadOnlyAdmin


@admin.register(Accelerator)
class AcceleratorAdmin(ReadOnlyAdmin[Accelerator]):
    list_display = ("name", "vendor", "memory_gb", "memory_bandwidth_tbps", "segment")
    list_filter = ("vendor", "segment")
    search_fields = ("name", "slug")


@admin.register(ModelProfile)
class ModelProfileAdmin(ReadOnlyAdmin[ModelProfile]):
    list_display = ("name", "family", "params_total_b", "layers", "kv_heads", "is_custom")
    search_fields = ("name", "slug")


@admin.register(Quote)
class QuoteAdmin(ReadOnlyAdmin[Quote]):
    list_display = ("provider", "accelerator", "capacity_model", "version", "status", "quoted_at")
    list_filter = ("capacity_model", "status", "is_public_list_price")
    list_select_related = ("provider", "accelerator")
    search_fields = ("title", "provider__name")


@admin.register(ModelApiRoute)
class ModelApiRouteAdmin(ReadOnlyAdmin[ModelApiRoute]):
    list_display = ("provider", "model_name", "price_input_per_m_tokens", "quoted_at")
    list_select_related = ("provider",)


@admin.register(FxRate)
class FxRateAdmin(ReadOnlyAdmin[FxRate]):
    list_display = ("currency", "rate_to_base", "as_of")


@admin.register(Rfq)
class RfqAdmin(ReadOnlyAdmin[Rfq]):
    list_display = ("title", "deadline", "status")


@admin.register(CatalogImportJob)
class CatalogImportJobAdmin(ReadOnlyAdmin[CatalogImportJob]):
    list_display = ("filename", "kind", "status", "progress", "created_by", "created_at")
    list_filter = ("status", "kind")
    exclude = ("data",)
