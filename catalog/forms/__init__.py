"""Catalog forms: shape only; the services apply the rules."""

from catalog.forms.quotes import (
    FIELD_GROUPS,
    QuoteForm,
    QuoteWithdrawForm,
    quote_initial,
    quote_initial_from_rfq,
)
from catalog.forms.reference import (
    AcceleratorListForm,
    ApiRouteForm,
    CompareForm,
    FxRateForm,
    ImportForm,
    ModelProfileForm,
    ProviderForm,
    RfqForm,
    RfqReopenForm,
)

__all__ = [
    "FIELD_GROUPS",
    "AcceleratorListForm",
    "ApiRouteForm",
    "CompareForm",
    "FxRateForm",
    "ImportForm",
    "ModelProfileForm",
    "ProviderForm",
    "QuoteForm",
    "QuoteWithdrawForm",
    "RfqForm",
    "RfqReopenForm",
    "quote_initial",
    "quote_initial_from_rfq",
]
