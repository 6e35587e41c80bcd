"""Who may see and change catalog objects: quotes, model API routes, FX rates, RFQs, providers.

The only way code obtains these objects on behalf of a user; HTML views and the API both
start here (vendors see their own organisation only; others get the same 404 as missing).
"""

from __future__ import annotations

from typing import Any, TypeVar

from django.db.models import QuerySet

from accounts.models import Provider, User
from catalog.models import FxRate, ModelApiRoute, ModelProfile, Quote, QuoteQuerySet, Rfq
from core.roles import STAFF_ROLES, Role, get_or_404, has_role, is_staff, is_vendor, role_required

CATALOG_WRITERS = frozenset({Role.PROCUREMENT_LEAD, Role.ADMIN})
FX_WRITERS = frozenset({Role.FINANCE_REVIEWER, Role.ADMIN})

# View gates (vendors and anyone without the role get 404, so pages cannot be probed).
staff_required = role_required(*STAFF_ROLES)
writer_required = role_required(*CATALOG_WRITERS)
fx_writer_required = role_required(*FX_WRITERS)
vendor_required = role_required(Role.VENDOR)

_Q = TypeVar("_Q", bound=QuerySet[Any])


def _own(user: User, qs: _Q, field: str = "provider_id") -> _Q:
    """All of `qs` for staff, a vendor's own organisation's rows, nothing for anyone else."""
    if is_staff(user):
        return qs
    if is_vendor(user) and user.provider_id is not None:
        return qs.filter(**{field: user.provider_id})
    return qs.none()


def providers_for(user: User) -> QuerySet[Provider]:
    return _own(user, Provider.objects.all(), "pk")


def quotes_for(user: User) -> QuoteQuerySet:
    """The only way code obtains Quotes on behalf of a user."""
    return _own(user, Quote.objects.select_related("provider", "accelerator", "entered_by", "rfq"))


def access_quote(user: User, quote_id: Any) -> Quote:
    return get_or_404(quotes_for(user), pk=quote_id)


def entered_by_vendor(quote: Quote) -> bool:
    """Whether this version's price was entered by the quoting provider's own people."""
    author = quote.entered_by
    return author is not None and author.role == Role.VENDOR


def can_revise_quote(user: User, quote: Quote) -> bool:
    """Vendors revise their own organisation's quotes while the RFQ is open. Staff revise
    quotes they or an import entered, never a vendor's submitted price: they ask the
    vendor for a revision, or enter a quote of their own (marked as staff-entered)."""
    if is_vendor(user):
        if quote.provider_id != user.provider_id:
            return False
        return quote.rfq is None or quote.rfq.is_open_for_answers()
    if has_role(user, *CATALOG_WRITERS):
        return not entered_by_vendor(quote)
    return False


def can_withdraw_quote(user: User, quote: Quote) -> bool:
    """Withdrawing changes no price: staff may withdraw any quote (a bad or fraudulent offer);
    vendors their own while the RFQ is open."""
    if has_role(user, *CATALOG_WRITERS):
        return True
    return can_revise_quote(user, quote)


def model_profiles_for(user: User) -> QuerySet[ModelProfile]:
    """Reference models for everyone; models the buyer defined (`is_custom`) for staff only
    (a lead's internal model, its notes and its author stay with the buyer)."""

    qs = ModelProfile.objects.select_related("created_by")
    return qs if is_staff(user) else qs.filter(is_custom=False)


def api_routes_for(user: User) -> QuerySet[ModelApiRoute]:
    return _own(user, ModelApiRoute.objects.select_related("provider", "model_profile"))


def fx_rates_for(user: User) -> QuerySet[FxRate]:
    return FxRate.objects.all() if is_staff(user) else FxRate.objects.none()


def rfqs_for(user: User) -> QuerySet[Rfq]:
    qs = Rfq.objects.select_related("created_by", "brief")
    if is_staff(user):
        return qs
    if is_vendor(user):
        return qs.filter(providers=user.provider_id)
    return qs.none()


def access_rfq(user: User, rfq_id: Any) -> Rfq:
    return get_or_404(rfqs_for(user), pk=rfq_id)
