"""Catalog writes (services), re-exported so callers import from `catalog.services`."""

from catalog.services.imports import ImportKind, catalog_import
from catalog.services.quotes import (
    quote_revise,
    quote_submit,
    quote_withdraw,
)
from catalog.services.reference import (
    MODEL_WRITERS,
    api_route_create,
    fx_rate_create,
    model_profile_create,
    provider_create,
)
from catalog.services.rfqs import (
    RFQ_AWARDED,
    rfq_close,
    rfq_create,
    rfq_reopen,
    rfqs_close_on_decision,
)

__all__ = [
    "MODEL_WRITERS",
    "RFQ_AWARDED",
    "ImportKind",
    "api_route_create",
    "catalog_import",
    "fx_rate_create",
    "model_profile_create",
    "provider_create",
    "quote_revise",
    "quote_submit",
    "quote_withdraw",
    "rfq_close",
    "rfq_create",
    "rfq_reopen",
    "rfqs_close_on_decision",
]
