"""API v1 catalog endpoints. Querysets come from `catalog.access`; writes go through the
services; there is no PUT, PATCH or DELETE on anything versioned."""

from __future__ import annotations

from typing import Any, TypeVar

from django.db.models import Model, QuerySet
from django.utils import timezone
from drf_spectacular.utils import extend_schema
from rest_framework import exceptions, mixins, status, viewsets
from rest_framework.decorators import action
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.serializers import BaseSerializer, Serializer

from accounts.http import api_user
from accounts.models import Provider
from catalog import access, panels, selectors, services
from catalog.api import serializers as s
from catalog.filters import AcceleratorFilter, QuoteFilter
from catalog.importers.common import MAX_BYTES
from catalog.models import (
    Accelerator,
    CatalogImportJob,
    FxRate,
    ModelApiRoute,
    ModelProfile,
    Quote,
    Rfq,
)
from catalog.services.import_jobs import import_job_create
from core.api.pagination import KeysFirstPagination
from core.api.parsers import SafeFormParser, SafeJSONParser, SafeMultiPartParser
from core.api.permissions import HasRole
from core.roles import STAFF_ROLES, Role, is_vendor

_M = TypeVar("_M", bound=Model)

EVERYONE = frozenset(Role.values)
STAFF_AND_VENDORS = STAFF_ROLES | {Role.VENDOR}


class CatalogRole(HasRole):
    """HasRole, but a vendor who is refused gets 404, never 403 (ADR 0004)."""

    def has_permission(self, request: Request, view: Any) -> bool:
        allowed = super().has_permission(request, view)
        if not allowed and is_vendor(request.user):
            raise exceptions.NotFound()
        return allowed


SLUG_REGEX = "[-a-zA-Z0-9_]+"  # anything else (a NUL byte, say) is a plain 404


def _valid(serializer_class: type[Serializer[Any]], request: Request) -> dict[str, Any]:
    """The request's body, checked for shape (a 400 naming each field when it is not)."""
    serializer = serializer_class(data=request.data)
    serializer.is_valid(raise_exception=True)
    return dict(serializer.validated_data)


class _Base(viewsets.GenericViewSet[_M]):
    permission_classes = [CatalogRole]
    parser_classes = [SafeJSONParser, SafeFormParser, SafeMultiPartParser]
    http_method_names = ["get", "post", "head", "options"]


class AcceleratorViewSet(_Base[Accelerator], mixins.ListModelMixin, mixins.RetrieveModelMixin):
    """The accelerator catalog. Filters: vendor, min_memory_gb, segment, fp8, fp4."""

    queryset = Accelerator.objects.all()
    serializer_class = s.AcceleratorSerializer
    lookup_field = "slug"
    lookup_value_regex = SLUG_REGEX
    filterset_class = AcceleratorFilter
    ordering_fields = ("name", "vendor", "memory_gb", "memory_bandwidth_tbps", "bf16_dense_tflops")
    read_roles = EVERYONE


class ModelProfileViewSet(_Base[ModelProfile], mixins.ListModelMixin, mixins.RetrieveModelMixin):
    serializer_class = s.ModelProfileSerializer
    lookup_field = "slug"
    lookup_value_regex = SLUG_REGEX
    ordering_fields = ("name", "params_total_b")
    read_roles = EVERYONE

    def get_queryset(self) -> QuerySet[ModelProfile]:
        if getattr(self, "swagger_fake_view", False):  # the schema: no signed-in user
            return ModelProfile.objects.none()
        return access.model_profiles_for(api_user(self.request)).order_by("family", "name")


class ProviderViewSet(
    _Base[Provider], mixins.ListModelMixin, mixins.RetrieveModelMixin, mixins.CreateModelMixin
):
    """Providers; a vendor sees only their own organisation. Lead or admin create."""

    serializer_class = s.ProviderSerializer
    read_roles = STAFF_AND_VENDORS
    write_roles = access.CATALOG_WRITERS

    def get_queryset(self) -> QuerySet[Provider]:
        if getattr(self, "swagger_fake_view", False):  # the schema: no signed-in user
            return Provider.objects.none()
        return access.providers_for(api_user(self.request)).order_by("name")

    def perform_create(self, serializer: BaseSerializer[Provider]) -> None:
        user, data = api_user(self.request), serializer.validated_data
        serializer.instance = services.provider_create(acting_user=user, data=data)


class QuoteViewSet(_Base[Quote], mixins.ListModelMixin, mixins.RetrieveModelMixin):
    """Quote versions. Filters: accelerator, provider, capacity_model, region, stale, current.

    POST creates version 1; `revise/` and `withdraw/` add a version. Vendors read and write
    only their own organisation's quotes; anything else is 404.
    """

    serializer_class = s.QuoteSerializer
    filterset_class = QuoteFilter
    pagination_class = KeysFirstPagination  # 10,000s of rows, each joined to four tables
    ordering_fields = ("created_at", "quoted_at", "price_per_gpu_hour", "version")
    ordering = ("-created_at",)
    read_roles = STAFF_AND_VENDORS
    write_roles = access.CATALOG_WRITERS | {Role.VENDOR}

    def get_queryset(self) -> QuerySet[Quote]:
        if getattr(self, "swagger_fake_view", False):  # the schema: no signed-in user
            return Quote.objects.none()
        return access.quotes_for(api_user(self.request)).select_related("superseded_by")

    def list(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        queryset = self.filter_queryset(self.get_queryset())
        page = self.paginate_queryset(queryset)
        items = list(page if page is not None else queryset)
        context = {**self.get_serializer_context(), "checklists": panels.checklist_summaries(items)}
        data = s.QuoteSerializer(items, many=True, context=context).data
        return self.get_paginated_response(data) if page is not None else Response(data)

    def retrieve(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        context = {**self.get_serializer_context(), "market_position": True}
        return Response(s.QuoteSerializer(self.get_object(), context=context).data)

    def _created(self, quote: Quote) -> Response:
        fresh = self.get_queryset().get(pk=quote.pk)
        return Response(s.QuoteSerializer(fresh).data, status=status.HTTP_201_CREATED)

    @extend_schema(request=s.QuoteInputSerializer, responses={201: s.QuoteSerializer})
    def create(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        data = _valid(s.QuoteInputSerializer, request)
        provider, rfq_id = data.pop("provider", None), data.pop("rfq", None)
        is_public = data.pop("is_public_list_price", False)
        confirmed = data.pop("confirm_unusual_price", False)
        rfq = access.access_rfq(api_user(request), rfq_id) if rfq_id else None
        quote = services.quote_submit(
            acting_user=api_user(request),
            data=data,
            provider=None if is_vendor(request.user) else provider,
            rfq=rfq,
            is_public_list_price=is_public,
            confirm_unusual_price=confirmed,
        )
        return self._created(quote)

    @extend_schema(request=s.QuoteReviseInputSerializer, responses={201: s.QuoteSerializer})
    @action(detail=True, methods=["post"])
    def revise(self, request: Request, pk: str | None = None) -> Response:
        """Save a new version with the fields given; the old version is kept unchanged."""
        quote = self.get_object()
        data = _valid(s.QuoteReviseInputSerializer, request)
        confirmed = data.pop("confirm_unusual_price", False)
        new = services.quote_revise(
            acting_user=api_user(request), quote=quote, data=data, confirm_unusual_price=confirmed
        )
        return self._created(new)

    @extend_schema(request=s.QuoteWithdrawInputSerializer, responses={201: s.QuoteSerializer})
    @action(detail=True, methods=["post"])
    def withdraw(self, request: Request, pk: str | None = None) -> Response:
        """Withdraw: a new version with status withdrawn (nothing is deleted)."""
        quote = self.get_object()
        reason = _valid(s.QuoteWithdrawInputSerializer, request).get("reason", "")
        new = services.quote_withdraw(acting_user=api_user(request), quote=quote, reason=reason)
        return self._created(new)


class ApiRouteViewSet(
    _Base[ModelApiRoute], mixins.ListModelMixin, mixins.RetrieveModelMixin, mixins.CreateModelMixin
):
    """Model API routes (price per million input / output / cached tokens)."""

    serializer_class = s.ApiRouteSerializer
    filterset_fields = ("is_public_list_price", "currency")
    read_roles = STAFF_AND_VENDORS
    write_roles = access.CATALOG_WRITERS

    def get_queryset(self) -> QuerySet[ModelApiRoute]:
        if getattr(self, "swagger_fake_view", False):  # the schema: no signed-in user
            return ModelApiRoute.objects.none()
        return selectors.api_routes_list(api_user(self.request))

    def perform_create(self, serializer: BaseSerializer[ModelApiRoute]) -> None:
        data = dict(serializer.validated_data)
        serializer.instance = services.api_route_create(
            acting_user=api_user(self.request), data=data, provider=data.pop("provider")
        )


class FxRateViewSet(
    _Base[FxRate], mixins.ListModelMixin, mixins.RetrieveModelMixin, mixins.CreateModelMixin
):
    """FX rates to the base currency; finance or admin enter them."""

    serializer_class = s.FxRateSerializer
    filterset_fields = ("currency",)
    read_roles = STAFF_ROLES
    write_roles = access.FX_WRITERS

    def get_queryset(self) -> QuerySet[FxRate]:
        if getattr(self, "swagger_fake_view", False):  # the schema: no signed-in user
            return FxRate.objects.none()
        return selectors.fx_rates_list(api_user(self.request))

    def perform_create(self, serializer: BaseSerializer[FxRate]) -> None:
        user, data = api_user(self.request), serializer.validated_data
        serializer.instance = services.fx_rate_create(acting_user=user, data=data)


class RfqViewSet(_Base[Rfq], mixins.ListModelMixin, mixins.RetrieveModelMixin):
    """RFQs; a vendor sees only those addressed to their organisation."""

    read_roles = STAFF_AND_VENDORS
    write_roles = access.CATALOG_WRITERS

    def get_queryset(self) -> QuerySet[Rfq]:
        if getattr(self, "swagger_fake_view", False):  # the schema: no signed-in user
            return Rfq.objects.none()
        return selectors.rfqs_list(api_user(self.request)).prefetch_related("providers")

    def get_serializer_class(self) -> type[s.RfqSerializer]:
        return s.VendorRfqSerializer if is_vendor(self.request.user) else s.RfqSerializer

    @extend_schema(request=s.RfqInputSerializer, responses={201: s.RfqSerializer})
    def create(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        data = _valid(s.RfqInputSerializer, request)
        rfq = services.rfq_create(acting_user=api_user(request), data=data)
        return Response(s.RfqSerializer(rfq).data, status=status.HTTP_201_CREATED)

    @extend_schema(request=s.RfqReopenInputSerializer, responses={200: s.RfqSerializer})
    @action(detail=True, methods=["post"])
    def reopen(self, request: Request, pk: str | None = None) -> Response:
        rfq = self.get_object()
        deadline = _valid(s.RfqReopenInputSerializer, request)["deadline"]
        rfq = services.rfq_reopen(acting_user=api_user(request), rfq=rfq, deadline=deadline)
        return Response(s.RfqSerializer(rfq).data)


class CatalogImportViewSet(_Base[CatalogImportJob]):
    """POST a public price file (multipart): SkyPilot `vms.csv`, LiteLLM JSON or our price-list
    CSV. 201 with the outcome (created, revised, unchanged, withdrawn, skipped, unknown, row
    errors reported); 200 when the same bytes were already imported for that date; 400
    `import_rejected` with every row error when the file is refused."""

    read_roles = access.CATALOG_WRITERS
    write_roles = access.CATALOG_WRITERS
    parser_classes = [SafeMultiPartParser, SafeFormParser]
    serializer_class = s.CatalogImportSerializer

    def get_queryset(self) -> QuerySet[CatalogImportJob]:
        return CatalogImportJob.objects.defer("data").select_related("created_by")

    @extend_schema(responses={200: s.CatalogImportJobSerializer})
    def retrieve(self, request: Request, pk: str | None = None) -> Response:
        """A background import: status, progress, stage, then the outcome or row errors."""
        return Response(s.CatalogImportJobSerializer(self.get_object()).data)

    @extend_schema(
        request=s.CatalogImportSerializer,
        responses={201: dict, 200: dict, 202: s.CatalogImportJobSerializer},
    )
    def create(self, request: Request) -> Response:
        data = _valid(s.CatalogImportSerializer, request)
        upload = data["file"]
        if upload.size > MAX_BYTES:
            raise exceptions.ValidationError({"file": [f"At most {MAX_BYTES // 1_000_000} MB."]})
        slugs = data.get("only_providers") or []
        arguments = {
            "acting_user": request.user,
            "kind": data["kind"],
            "data": upload.read(),
            "filename": upload.name or "upload",
            "captured_on": data.get("captured_on") or timezone.now().date(),
            "provider": data.get("provider"),
            "only_providers": list(Provider.objects.filter(slug__in=slugs)) or None,
            "all_or_nothing": data.get("all_or_nothing"),
        }
        if data.get("background"):
            job = import_job_create(**arguments)
            body = s.CatalogImportJobSerializer(job).data
            return Response(body, status=status.HTTP_202_ACCEPTED)
        outcome = services.catalog_import(**arguments)
        code = status.HTTP_200_OK if outcome.duplicate_of else status.HTTP_201_CREATED
        return Response(outcome.as_dict(), status=code)
