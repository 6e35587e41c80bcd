"""What a client sends to create a comparison, and the 202 it gets back (the list and detail
serializers: procurement/api/comparisons.py)."""

from __future__ import annotations

from rest_framework import serializers

from procurement.models import Comparison
from procurement.services.comparisons.selection import MAX_IDS


def _words(help_text: str) -> serializers.ListField:
    return serializers.ListField(
        child=serializers.CharField(max_length=80),
        required=False,
        max_length=200,
        help_text=help_text + " Narrows the candidates before they are frozen.",
    )


class ComparisonInputSerializer(serializers.Serializer[None]):
    brief = serializers.IntegerField(min_value=1, help_text="Id of a complete brief.")
    quotes = serializers.ListField(
        child=serializers.IntegerField(min_value=1),
        required=False,
        allow_null=True,
        max_length=MAX_IDS,
        help_text="Quote version ids. Omit quotes and api_routes for the default selection: "
        "every current quote inside the brief's allowed regions and every active API route "
        "that could serve the brief (with filters: every current offer they keep).",
    )
    api_routes = serializers.ListField(
        child=serializers.IntegerField(min_value=1),
        required=False,
        allow_null=True,
        max_length=MAX_IDS,
    )
    assumptions = serializers.DictField(
        required=False,
        help_text='Overrides, e.g. {"utilisation": {"low": 0.4, '
        '"likely": 0.6, "high": 0.8}, "headroom_margin_pct": 15}.',
    )
    seed = serializers.IntegerField(
        required=False, allow_null=True, min_value=0, max_value=2**63 - 1
    )
    title = serializers.CharField(required=False, allow_blank=True, max_length=200)
    regions = _words(
        "Only quotes in these regions (prefixes, any case: eu-west matches eu-west-2)."
    )
    capacity_models = _words('Only these capacity models ("api" keeps the model API routes).')
    accelerators = _words("Only quotes for these accelerators (slugs); drops API routes.")
    providers = _words("Only these providers (slugs).")
    rfqs = _words("Only the quotes answering these RFQs (ids); drops API routes.")


class ComparisonQueuedSerializer(serializers.Serializer[Comparison]):
    id = serializers.IntegerField()
    status = serializers.CharField()
    revision = serializers.IntegerField()
    url = serializers.CharField()
    queue = serializers.CharField(help_text="sent | unavailable (saved, re-sent automatically)")
    detail = serializers.CharField()
