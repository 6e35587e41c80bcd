"""Catalog reads. Everything a user sees starts from the `access` querysets."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from decimal import Decimal
from operator import attrgetter
from typing import TYPE_CHECKING, Any

from django.conf import settings
from django.db.models import (
    Case,
    Count,
    DecimalField,
    Expression,
    F,
    Min,
    OuterRef,
    Q,
    QuerySet,
    Subquery,
    Value,
    When,
)
from django.db.models.expressions import RawSQL
from django.utils import timezone

from catalog import access
from catalog.importers.litellm import LITELLM_SOURCE
from catalog.models import (
    Accelerator,
    FxRate,
    ModelApiRoute,
    ModelProfile,
    PrivateEndpoint,
    Quote,
    Rfq,
)
from catalog.regions import boundary_reason
from core.roles import is_staff

if TYPE_CHECKING:
    from accounts.models import User

QUOTE_PRICE_STEP = Decimal("0.0001")  # a quote price holds 4 decimals (catalog MONEY)

# The accelerator list's sortable columns, in the page's order: key → (field, heading).
ACCELERATOR_SORTS = {
    "vendor": ("vendor", "Vendor"),
    "name": ("name", "Name"),
    "memory": ("memory_gb", "Memory (GB)"),
    "bandwidth": ("memory_bandwidth_tbps", "TB/s"),
    "bf16": ("bf16_dense_tflops", "BF16 TFLOPS"),
    "fp8": ("fp8_dense_tflops", "FP8 TFLOPS"),
    "fp4": ("fp4_dense_tflops", "FP4 TFLOPS"),
    "interconnect": ("interconnect_gbps", "Interconnect GB/s"),
    "tdp": ("tdp_w", "TDP (W)"),
    "year": ("launch_year", "Year"),
    "price": ("lowest_usd_per_gpu_hour", "Lowest USD / GPU-h"),
}

# All versions of one quote: walk `supersedes` up to the first version and down to the
# latest, in one query (PostgreSQL and SQLite both run WITH RECURSIVE).
_LINEAGE_SQL = """
WITH RECURSIVE up(id, supersedes_id) AS (
    SELECT id, supersedes_id FROM catalog_quote WHERE id = %s
    UNION
    SELECT q.id, q.supersedes_id FROM catalog_quote q JOIN up ON q.id = up.supersedes_id
), down(id) AS (
    SELECT id FROM catalog_quote WHERE id = %s
    UNION
    SELECT q.id FROM catalog_quote q JOIN down ON q.supersedes_id = down.id
)
SELECT id FROM up UNION SELECT id FROM down
"""


# --- Accelerators and models -------------------------------------------------------------------


def accelerators_list(filters: Mapping[str, Any] | None = None) -> list[Accelerator]:
    """Catalog rows after the list page's filters and sort (already validated by a form),
    each with its current USD price (with_current_prices)."""
    filters = filters or {}
    qs = Accelerator.objects.all()
    if filters.get("vendor"):
        qs = qs.filter(vendor__iexact=filters["vendor"])
    if filters.get("segment"):
        qs = qs.filter(segment=filters["segment"])
    if filters.get("min_memory_gb") is not None:
        qs = qs.filter(memory_gb__gte=filters["min_memory_gb"])
    if filters.get("min_bandwidth_tbps") is not None:
        qs = qs.filter(memory_bandwidth_tbps__gte=filters["min_bandwidth_tbps"])
    if filters.get("fp8"):
        qs = qs.filter(fp8_dense_tflops__isnull=False)
    if filters.get("fp4"):
        qs = qs.filter(fp4_dense_tflops__isnull=False)
    if filters.get("q"):
        qs = qs.filter(name__icontains=filters["q"])
    sort = filters.get("sort") or ""
    field = ACCELERATOR_SORTS.get(sort.lstrip("-"), ("", ""))[0]
    if field and field != "lowest_usd_per_gpu_hour":
        ordered = (
            F(field).desc(nulls_last=True)
            if sort.startswith("-")
            else F(field).asc(nulls_last=True)
        )
        qs = qs.order_by(ordered, "name")
    rows = with_current_prices(qs)
    if field == "lowest_usd_per_gpu_hour":
        priced = [a for a in rows if a.lowest_usd_per_gpu_hour is not None]
        by_name = attrgetter("name")
        priced.sort(key=by_name)  # ties by name, as the SQL sorts do
        priced.sort(key=_lowest_price, reverse=sort.startswith("-"))
        rows = priced + sorted((a for a in rows if a.lowest_usd_per_gpu_hour is None), key=by_name)
    return rows


def _lowest_price(accelerator: Accelerator) -> Decimal:
    return accelerator.lowest_usd_per_gpu_hour or Decimal(0)


def with_current_prices(qs: QuerySet[Accelerator]) -> list[Accelerator]:
    """The lowest current price per GPU-hour in the base currency (USD) and the number
    of current offers behind it (the catalog's price column).

    A quote in another currency counts at its currency's newest FX rate, as the quote list
    sorts it (`in_base_currency`); a currency with no rate cannot be compared and is left
    out (its quotes are on the accelerator's page). One grouped pass over the current
    quotes, not two correlated subqueries per accelerator (0.5 s at 10,000 quotes, most of it
    PostgreSQL compiling them with JIT)."""
    rows = list(qs)
    comparable = Q(currency=settings.BASE_CURRENCY) | Q(currency__in=_currencies_with_a_rate())
    prices = {
        row["accelerator_id"]: row
        for row in Quote.objects.current()
        .filter(price_per_gpu_hour__isnull=False)
        .order_by()
        .values("accelerator_id")
        .annotate(
            lowest=Min(in_base_currency("price_per_gpu_hour")),
            n=Count("pk", filter=comparable),
        )
    }
    for accelerator in rows:
        found = prices.get(accelerator.pk)
        lowest = found["lowest"] if found else None
        # A converted price carries the rate's 8 decimals: keep the quote's 4.
        accelerator.lowest_usd_per_gpu_hour = (
            None if lowest is None else lowest.quantize(QUOTE_PRICE_STEP)
        )
        accelerator.usd_offers = found["n"] if found else None
    return rows


def _currencies_with_a_rate() -> QuerySet[FxRate, str]:
    return FxRate.objects.values_list("currency", flat=True)


def accelerator_vendors() -> list[str]:
    return list(Accelerator.objects.order_by("vendor").values_list("vendor", flat=True).distinct())


def accelerators_by_slugs(slugs: Iterable[str]) -> list[Accelerator]:
    """The accelerators in the order asked for; missing slugs are simply absent."""
    slugs = list(slugs)
    found = {a.slug: a for a in Accelerator.objects.filter(slug__in=slugs)}
    return [found[s] for s in slugs if s in found]


def model_profiles_list() -> QuerySet[ModelProfile]:
    return ModelProfile.objects.select_related("created_by")


# --- Quotes ------------------------------------------------------------------------------------


def quote_lineage(quote: Quote) -> QuerySet[Quote]:
    """Every version of the quote's lineage, oldest first (one query)."""
    ids = RawSQL(_LINEAGE_SQL, [quote.pk, quote.pk])  # noqa: S611 - constant SQL, bound params  # nosec B611
    return (
        Quote.objects.filter(pk__in=ids)
        .select_related("entered_by", "provider", "accelerator")
        .order_by("version")
    )


def quote_versions_for(user: User, quote: Quote) -> list[Quote]:
    """The versions the user may see (all of them, since access is per provider)."""
    allowed = access.quotes_for(user).filter(provider_id=quote.provider_id)
    return list(quote_lineage(quote).filter(pk__in=allowed.values("pk")))


def quote_latest_version(quote: Quote) -> Quote:
    return quote_lineage(quote).order_by("-version").first() or quote


def quotes_for_rfq(user: User, rfq: Rfq) -> QuerySet[Quote]:
    """Latest version of each answer to one RFQ that the user may see (vendors: only their
    own organisation's); withdrawn answers stay listed as withdrawn."""
    return (
        access.quotes_for(user)
        .filter(rfq=rfq, superseded_by__isnull=True)
        .order_by("provider__name", "accelerator__name", "-created_at")
    )


def rfq_answers_excluded(rfq: Rfq, quotes: Iterable[Quote]) -> list[dict[str, Any]]:
    """The answers a comparison of the RFQ's brief would leave out or rule ineligible, each
    with its reasons in words: outside the brief's regions (the wizard's first filter and the
    data-boundary rule) or without the private endpoint the brief requires. The lead asks the
    vendor before comparing instead of discovering an ineligible row."""
    brief = rfq.brief
    if brief is None:
        return []
    allowed = [str(r) for r in brief.allowed_regions or []]
    rows = []
    for quote in quotes:
        if quote.status == Quote.Status.WITHDRAWN:
            continue
        reasons = []
        if reason := boundary_reason([quote.region], allowed):
            reasons.append(f"outside the brief's regions: {reason}")
        if brief.private_endpoint_required and quote.private_endpoint != PrivateEndpoint.YES:
            stated = quote.get_private_endpoint_display().lower()
            reasons.append(f"the brief requires a private endpoint; this answer says {stated}")
        if reasons:
            rows.append({"quote": quote, "reasons": "; ".join(reasons)})
    return rows


def current_quotes_for_accelerator(user: User, accelerator: Accelerator) -> QuerySet[Quote]:
    return (
        access.quotes_for(user)
        .current()
        .filter(accelerator=accelerator)
        .order_by("price_per_gpu_hour", "provider__name")
    )


# --- Who entered a price ----------------------------------------------------------------------

PRICE_AUTHORS = {"vendor": "Vendor", "staff": "Procurement", "import": "Import"}


def price_author(offer: Quote | ModelApiRoute) -> str:
    """Who entered this price: "vendor" (the provider's own people), "import" (a price file
    or list imported by the catalog) or "staff" (procurement keyed it in)."""
    if isinstance(offer, Quote):
        if access.entered_by_vendor(offer):
            return "vendor"
        return "import" if offer.list_key else "staff"
    return "import" if offer.source_url == LITELLM_SOURCE else "staff"  # routes: staff only


def price_author_label(offer: Quote | ModelApiRoute) -> str:
    """What the review screens and exports show: Vendor, Import or Procurement (username)."""
    kind = price_author(offer)
    if kind == "staff" and offer.entered_by is not None:
        return f"{PRICE_AUTHORS[kind]} ({offer.entered_by.username})"
    return PRICE_AUTHORS[kind]


# --- RFQs, API routes, FX ------------------------------------------------------------------------


def rfqs_list(user: User) -> QuerySet[Rfq]:
    qs = access.rfqs_for(user).prefetch_related("accelerators")
    if is_staff(user):
        qs = qs.prefetch_related("providers")
    return qs


def closed_rfq_answered_by(
    *, provider_id: int, accelerator_id: int, capacity_model: str
) -> Rfq | None:
    """A closed RFQ this provider was invited to that asked for exactly this offer (its
    accelerator, and its capacity model when the RFQ names some). An unsolicited quote for it
    after the deadline is a late bid in disguise. RFQs that name no accelerator are too
    broad to tell, so they never match."""
    now = timezone.now()
    candidates = (
        Rfq.objects.filter(providers=provider_id, accelerators=accelerator_id)
        .filter(Q(status=Rfq.Status.CLOSED) | Q(deadline__lt=now))
        .order_by("-deadline")
    )
    for rfq in candidates:
        if not rfq.capacity_models or capacity_model in rfq.capacity_models:
            return rfq
    return None


def api_routes_list(user: User) -> QuerySet[ModelApiRoute]:
    return access.api_routes_for(user).select_related("entered_by")


def fx_rates_list(user: User) -> QuerySet[FxRate]:
    return access.fx_rates_for(user).select_related("entered_by")


def in_base_currency(field: str) -> Expression:
    """A quote's money field converted at its currency's newest FX rate, for sorting a list
    that mixes currencies by value; NULL when the currency has no rate (it then sorts last)."""
    newest = FxRate.objects.filter(currency=OuterRef("currency")).order_by("-as_of", "-pk")
    rate = Case(
        When(currency=settings.BASE_CURRENCY, then=Value(Decimal(1))),
        default=Subquery(newest.values("rate_to_base")[:1]),
        output_field=DecimalField(max_digits=18, decimal_places=8),
    )
    return F(field) * rate


# --- Offer lineage: which earlier versions measure the same hardware -----------------------

#: What a measurement depends on: a version that changes none of these (a new price, region,
#: term or validity) is the same hardware in the same configuration.
MEASURED_SETUP_FIELDS = (
    "provider_id",
    "accelerator_id",
    "gpus_per_node",
    "intra_node_interconnect",
    "inter_node_fabric",
    "inter_node_bandwidth_gbps",
    "vcpu_per_node",
    "ram_gb_per_node",
    "local_nvme_tb_per_node",
)


def same_setup_versions(quotes: Iterable[Quote]) -> dict[int, tuple[int, int]]:
    """For each quote, its earlier versions back to the first that changed the measured setup:
    {earlier version id: (this quote's id, that version's number)}. A benchmark run on v1 of
    an offer is still "measured on this offer" on a v2 that changed only its region or price
    (issue 37, U3). One query per lineage step over all the quotes together."""
    out: dict[int, tuple[int, int]] = {}
    frontier = {q.pk: (q.pk, q) for q in quotes if q.supersedes_id}
    while frontier:
        later = {pk: q for pk, (_, q) in frontier.items()}
        earlier = Quote.objects.in_bulk([q.supersedes_id for q in later.values()])
        step: dict[int, tuple[int, Quote]] = {}
        for pk, newer in later.items():
            head = frontier[pk][0]
            old = earlier.get(newer.supersedes_id)
            if old is None or any(
                getattr(old, f) != getattr(newer, f) for f in MEASURED_SETUP_FIELDS
            ):
                continue
            out[old.pk] = (head, old.version)
            if old.supersedes_id:
                step[old.pk] = (head, old)
        frontier = step
    return out
