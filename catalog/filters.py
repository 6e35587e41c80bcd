"""Quote and accelerator filters, shared by the HTML list pages and the API."""

from __future__ import annotations

from typing import Any

import django_filters
from django.db.models import Exists, OuterRef, Q, QuerySet

from accounts.models import Provider, User
from catalog import access
from catalog.models import Accelerator, CapacityModel, Quote
from core.db_limits import IdFilter
from core.forms import PlainSelect

YES_NO = (("true", "Yes"), ("false", "No"))


def _truthy(value: Any) -> bool | None:
    if value in (None, ""):
        return None
    return str(value).lower() in {"1", "true", "yes", "on"}


class QuoteFilter(django_filters.FilterSet):
    accelerator = django_filters.ModelChoiceFilter(
        queryset=Accelerator.objects.all(),
        to_field_name="slug",
        empty_label="any accelerator",
        widget=PlainSelect,
    )
    provider = django_filters.ModelChoiceFilter(
        queryset=Provider.objects.all(),
        to_field_name="slug",
        empty_label="any provider",
        widget=PlainSelect,
    )
    capacity_model = django_filters.ChoiceFilter(
        choices=CapacityModel.choices, empty_label="any capacity model"
    )
    region = django_filters.CharFilter(lookup_expr="icontains", label="Region contains")
    currency = django_filters.CharFilter(method="filter_currency", label="Currency")
    stale = django_filters.ChoiceFilter(
        choices=YES_NO, method="filter_stale", label="Stale", empty_label="Any"
    )
    current = django_filters.ChoiceFilter(
        choices=YES_NO, method="filter_current", label="Current versions only", empty_label="Any"
    )
    public = django_filters.ChoiceFilter(
        choices=YES_NO, method="filter_public", label="Public list price", empty_label="Any"
    )
    rfq = IdFilter(field_name="rfq_id", label="RFQ id")

    class Meta:
        model = Quote
        fields: list[str] = []

    def __init__(self, *args: Any, user: User | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        user = user if user is not None else getattr(self.request, "user", None)
        if user is not None:
            # A vendor's provider choice lists only their own organisation.
            provider = self.filters["provider"]
            if not isinstance(provider, django_filters.ModelChoiceFilter):
                raise TypeError("QuoteFilter.provider must be a ModelChoiceFilter")
            provider.queryset = access.providers_for(user)

    def filter_currency(self, qs: QuerySet[Quote], name: str, value: str) -> QuerySet[Quote]:
        return qs.filter(currency__iexact=value.strip()) if value else qs

    def filter_stale(self, qs: QuerySet[Quote], name: str, value: str) -> QuerySet[Quote]:
        flag = _truthy(value)
        if flag is None:
            return qs
        stale_ids = Quote.objects.stale().values("pk")
        return qs.filter(pk__in=stale_ids) if flag else qs.exclude(pk__in=stale_ids)

    def filter_current(self, qs: QuerySet[Quote], name: str, value: str) -> QuerySet[Quote]:
        flag = _truthy(value)
        if flag is None:
            return qs
        # EXISTS, as in QuoteQuerySet.current: the LEFT JOIN … IS NULL form misleads the planner
        later = Exists(Quote.objects.filter(supersedes=OuterRef("pk")))
        if flag:
            return qs.filter(~later).exclude(status=Quote.Status.WITHDRAWN)
        return qs.filter(later | Q(status=Quote.Status.WITHDRAWN))

    def filter_public(self, qs: QuerySet[Quote], name: str, value: str) -> QuerySet[Quote]:
        flag = _truthy(value)
        return qs if flag is None else qs.filter(is_public_list_price=flag)


class AcceleratorFilter(django_filters.FilterSet):
    vendor = django_filters.CharFilter(lookup_expr="iexact")
    segment = django_filters.ChoiceFilter(choices=Accelerator.Segment.choices)
    min_memory_gb = django_filters.NumberFilter(field_name="memory_gb", lookup_expr="gte")
    min_bandwidth_tbps = django_filters.NumberFilter(
        field_name="memory_bandwidth_tbps", lookup_expr="gte"
    )
    fp8 = django_filters.BooleanFilter(field_name="fp8_dense_tflops", method="filter_has")
    fp4 = django_filters.BooleanFilter(field_name="fp4_dense_tflops", method="filter_has")

    class Meta:
        model = Accelerator
        fields: list[str] = []

    def filter_has(
        self, qs: QuerySet[Accelerator], name: str, value: bool | None
    ) -> QuerySet[Accelerator]:
        if value is None:
            return qs
        return qs.filter(**{f"{name}__isnull": not value})
