"""API serializers: shape only (types, required fields); the services apply the rules."""

from __future__ import annotations

from decimal import Decimal
from typing import Any, TypeVar

from django.db import models
from rest_framework import serializers

from accounts.models import Provider
from catalog import market, panels
from catalog.models import (
    Accelerator,
    CatalogImportJob,
    FxRate,
    ModelApiRoute,
    ModelProfile,
    Quote,
    Rfq,
)
from catalog.plausibility import check_for_viewer
from catalog.services.imports import ImportKind
from catalog.services.quotes import QUOTE_INPUT_FIELDS
from catalog.services.reference import API_ROUTE_FIELDS
from core.api.fields import PersonField, SlugLookupField
from core.roles import STAFF_ROLES, has_role

_M = TypeVar("_M", bound=models.Model)


class StrictDecimalField(serializers.DecimalField):
    """Money arrives as a string ("2.49") or an integer, never a binary float."""

    default_error_messages = {
        "float": 'Send money as a string such as "2.49", not a JSON float (floats lose cents).'
    }

    def to_internal_value(self, data: Any) -> Decimal:
        if isinstance(data, float):
            self.fail("float")
        return super().to_internal_value(data)


class _MoneyModelSerializer(serializers.ModelSerializer[_M]):
    serializer_field_mapping = {
        **serializers.ModelSerializer.serializer_field_mapping,
        models.DecimalField: StrictDecimalField,
    }


def _read_slug(slug_field: str = "slug", **options: Any) -> serializers.SlugRelatedField[Any]:
    """A related object shown by its slug (a person by username), read-only."""
    return serializers.SlugRelatedField(slug_field=slug_field, read_only=True, **options)


class AcceleratorSerializer(serializers.ModelSerializer[Accelerator]):
    class Meta:
        model = Accelerator
        exclude = ("id",)


class ModelProfileSerializer(serializers.ModelSerializer[ModelProfile]):
    created_by = _read_slug("username", allow_null=True)

    class Meta:
        model = ModelProfile
        exclude = ("id",)


class ProviderSerializer(serializers.ModelSerializer[Provider]):
    class Meta:
        model = Provider
        fields = ("id", "name", "slug", "kind", "website", "contact_email", "created_at")
        read_only_fields = ("id", "created_at")
        extra_kwargs: dict[str, dict[str, Any]] = {
            "slug": {"required": False, "validators": []},
            "name": {"validators": []},
        }


# --- Quotes ----------------------------------------------------------------------------------


class QuoteSerializer(_MoneyModelSerializer[Quote]):
    """A quote version as the API shows it, with its checklist summary."""

    provider = _read_slug()
    accelerator = _read_slug()
    entered_by = PersonField()
    # Blank when the price came from a document (`source_document`), so not always a URL.
    source_url = serializers.URLField(read_only=True, allow_blank=True)
    superseded_by = serializers.SerializerMethodField()
    is_stale = serializers.BooleanField(read_only=True)
    is_current = serializers.SerializerMethodField()
    market_position = serializers.SerializerMethodField(
        help_text="Detail only (null in lists): percentile among the public list prices for "
        "the same accelerator, capacity model and currency current on the quoted date, and an "
        "outlier flag (low/high/null)."
    )
    checklist = serializers.SerializerMethodField()
    price_check = serializers.SerializerMethodField(
        help_text="The plausibility check's figures when flagged; the market reference "
        "(`reference`) is shown to staff only."
    )

    class Meta:
        model = Quote
        fields = (
            "id",
            "provider",
            "rfq",
            "version",
            "supersedes",
            "superseded_by",
            "status",
            "is_public_list_price",
            "is_stale",
            "is_current",
            *QUOTE_INPUT_FIELDS,
            "zones",
            "entered_by",
            "price_far_from_market",
            "price_check",
            "created_at",
            "checklist",
            "market_position",
        )
        read_only_fields = fields

    def get_market_position(self, quote: Quote) -> dict[str, Any] | None:
        if not self.context.get("market_position"):
            return None
        return market.quote_market_position(quote)

    def get_price_check(self, quote: Quote) -> dict[str, Any]:
        request = self.context.get("request")
        user = getattr(request, "user", None)
        return check_for_viewer(quote.price_check or {}, staff=has_role(user, *STAFF_ROLES))

    def get_superseded_by(self, quote: Quote) -> int | None:
        successor = getattr(quote, "superseded_by", None)
        return successor.pk if successor is not None else None

    def get_is_current(self, quote: Quote) -> bool:
        return self.get_superseded_by(quote) is None and quote.status == Quote.Status.SUBMITTED

    def get_checklist(self, quote: Quote) -> dict[str, Any] | None:
        """{"required_level", "completeness_pct", "missing_items", "red_flags"} or null."""
        summaries: dict[int, dict[str, Any]] | None = self.context.get("checklists")
        if summaries is not None:
            return summaries.get(quote.pk)
        return panels.checklist_summary(quote)


class _QuoteInput(_MoneyModelSerializer[Quote]):
    """Shape only: the model's limits and rules are checked by the service, so the API refuses
    a figure in the same words as the form and the import."""

    def build_standard_field(
        self, field_name: str, model_field: models.Field[Any, Any]
    ) -> tuple[type[serializers.Field[Any, Any, Any, Any]], dict[str, Any]]:
        field_class, kwargs = super().build_standard_field(field_name, model_field)
        for rule in ("min_value", "max_value", "validators"):
            kwargs.pop(rule, None)
        return field_class, kwargs


class QuoteInputSerializer(_QuoteInput):
    """What may be written. provider, version, status, supersedes and entered_by are not."""

    accelerator = SlugLookupField(slug_field="slug", queryset=Accelerator.objects.all())
    provider = SlugLookupField(
        slug_field="slug",
        queryset=Provider.objects.all(),
        required=False,
        help_text="Staff only (provider slug); a vendor's quote is always their own.",
    )
    rfq = serializers.IntegerField(required=False, allow_null=True, min_value=1)
    is_public_list_price = serializers.BooleanField(required=False, default=False)
    confirm_unusual_price = serializers.BooleanField(
        required=False,
        default=False,
        help_text="Send true to keep a price far from the market (5x above or 0.2x below the "
        "market reference, one voice per vendor, or outside the public list prices); without "
        "it such a price is refused with a 400 saying why (public figures only to vendors).",
    )

    class Meta:
        model = Quote
        fields = (
            *QUOTE_INPUT_FIELDS,
            "provider",
            "rfq",
            "is_public_list_price",
            "confirm_unusual_price",
        )


class QuoteReviseInputSerializer(_QuoteInput):
    """Only the fields that change; the rest is copied from the version being revised."""

    accelerator = SlugLookupField(
        slug_field="slug", queryset=Accelerator.objects.all(), required=False
    )
    confirm_unusual_price = serializers.BooleanField(
        required=False, default=False, help_text="As on create: keeps a price far from the market."
    )

    class Meta:
        model = Quote
        fields = (*QUOTE_INPUT_FIELDS, "confirm_unusual_price")
        extra_kwargs: dict[str, dict[str, Any]] = {
            name: {"required": False} for name in QUOTE_INPUT_FIELDS
        }


class QuoteWithdrawInputSerializer(serializers.Serializer[None]):
    reason = serializers.CharField(required=False, allow_blank=True, max_length=500)


# --- Model API routes, FX, RFQs --------------------------------------------------------------


class ApiRouteSerializer(_MoneyModelSerializer[ModelApiRoute]):
    provider = SlugLookupField(slug_field="slug", queryset=Provider.objects.all())
    model_profile = SlugLookupField(
        slug_field="slug", queryset=ModelProfile.objects.all(), required=False, allow_null=True
    )
    entered_by = _read_slug("username", allow_null=True)
    is_stale = serializers.BooleanField(read_only=True)
    processing_regions = serializers.ListField(
        child=serializers.CharField(max_length=60),
        max_length=30,
        required=False,
        help_text="Where the provider processes requests: geographies (EU, US), countries (DE) "
        "or cloud regions (eu-west-1). Empty: not stated (fails a brief's data boundary).",
    )

    class Meta:
        model = ModelApiRoute
        fields = (
            "id",
            "provider",
            *API_ROUTE_FIELDS,
            "price_tiers",
            "max_input_tokens",
            "is_active",
            "is_stale",
            "entered_by",
            "created_at",
        )
        read_only_fields = (
            "id",
            "price_tiers",
            "max_input_tokens",
            "is_active",
            "entered_by",
            "created_at",
        )
        extra_kwargs: dict[str, dict[str, Any]] = {
            name: {"validators": []} for name in API_ROUTE_FIELDS
        }


class FxRateSerializer(_MoneyModelSerializer[FxRate]):
    entered_by = _read_slug("username", allow_null=True)

    class Meta:
        model = FxRate
        fields = ("id", "currency", "rate_to_base", "as_of", "entered_by", "created_at")
        read_only_fields = ("id", "entered_by", "created_at")
        validators: list[Any] = []


class RfqSerializer(serializers.ModelSerializer[Rfq]):
    """Staff view of an RFQ: who is invited, which brief it comes from."""

    accelerators = _read_slug(many=True)
    providers = _read_slug(many=True)
    created_by = _read_slug("username")
    is_open = serializers.BooleanField(source="is_open_for_answers", read_only=True)

    class Meta:
        model = Rfq
        fields: tuple[str, ...] = (
            "id",
            "title",
            "brief",
            "requirements",
            "accelerators",
            "gpus_needed",
            "region",
            "capacity_models",
            "term_months",
            "deadline",
            "status",
            "is_open",
            "providers",
            "created_by",
            "created_at",
            "reopened_at",
        )
        read_only_fields = fields


RFQ_STAFF_ONLY = frozenset({"brief", "providers", "created_by", "created_at", "reopened_at"})


class VendorRfqSerializer(RfqSerializer):
    """A vendor sees the requirements, never the brief nor who else is invited."""

    class Meta(RfqSerializer.Meta):
        fields = tuple(f for f in RfqSerializer.Meta.fields if f not in RFQ_STAFF_ONLY)
        read_only_fields = fields


class RfqInputSerializer(serializers.ModelSerializer[Rfq]):
    accelerators = SlugLookupField(
        slug_field="slug", many=True, queryset=Accelerator.objects.all(), required=False
    )
    providers = SlugLookupField(slug_field="slug", many=True, queryset=Provider.objects.all())
    capacity_models = serializers.ListField(child=serializers.CharField(), required=False)

    class Meta:
        model = Rfq
        fields = (
            "title",
            "brief",
            "requirements",
            "accelerators",
            "gpus_needed",
            "region",
            "capacity_models",
            "term_months",
            "deadline",
            "providers",
        )


class RfqReopenInputSerializer(serializers.Serializer[None]):
    deadline = serializers.DateTimeField()


class CatalogImportSerializer(serializers.Serializer[CatalogImportJob]):
    """A public price file to import (multipart): the same choices as the import page.

    Typed by the import viewset's model (its `serializer_class`); it saves nothing itself."""

    kind = serializers.ChoiceField(choices=ImportKind.CHOICES)
    file = serializers.FileField()
    captured_on = serializers.DateField(required=False, help_text="Default: today.")
    provider = SlugLookupField(
        slug_field="slug",
        queryset=Provider.objects.all(),
        required=False,
        help_text="SkyPilot: the provider (cloud) the file lists.",
    )
    only_providers = serializers.ListField(
        child=serializers.SlugField(), required=False, help_text="LiteLLM: only these providers."
    )
    all_or_nothing = serializers.BooleanField(
        required=False,
        allow_null=True,
        default=None,
        help_text="Refuse the whole file when any row is wrong (default: yes for the price-list "
        "template, no for public files, whose bad rows are reported).",
    )
    background = serializers.BooleanField(
        required=False,
        default=False,
        help_text="Import in a worker: 202 with the job; GET /catalog-imports/{id}/ shows its "
        "progress and outcome.",
    )


# A background import as the API shows it: all but the stored file and the options it was
# queued with.
_QUEUED_WITH = frozenset({"data", "provider", "only_providers", "all_or_nothing"})


class CatalogImportJobSerializer(serializers.ModelSerializer[CatalogImportJob]):
    created_by = _read_slug("username")

    class Meta:
        model = CatalogImportJob
        fields = tuple(f.name for f in model._meta.concrete_fields if f.name not in _QUEUED_WITH)
        read_only_fields = fields
