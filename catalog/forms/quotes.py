"""The quote form (staff and vendors): every field's label and help text are the model's.

A plain Form built from the model's fields, not a ModelForm: the rules (positive prices, a
plausible node shape, purchase needs a node price...) live in the service, which reports them
per field, so the form never half-validates against model constraints.
"""

from __future__ import annotations

import copy
from typing import Any

from django import forms
from django.utils import timezone

from accounts.models import Provider
from catalog.choices import PrivateEndpoint
from catalog.models import ELASTIC_CAPACITY, Accelerator, CapacityModel, Quote, Rfq
from catalog.services.quotes import QUOTE_INPUT_FIELDS
from core.forms import field_of, use_decimal_text

DATETIME_FORMAT = "%Y-%m-%dT%H:%M"
_DATETIME_FORMATS = [DATETIME_FORMAT, "%Y-%m-%d %H:%M:%S"]

# Each group of the form starts at its first field; the others follow in the model's order.
GROUP_STARTS = {
    "accelerator": "Offer",
    "price_per_node": "Purchase",
    "gpus_per_node": "Node shape and topology",
    "min_commitment_gpus": "Commitment and terms",
    "storage_per_gb_month": "Other costs",
    "idle_billed": "Operations",
    "quoted_at": "Validity and source",
}


def _field_groups() -> list[tuple[str, list[str]]]:
    groups: list[tuple[str, list[str]]] = []
    for name in QUOTE_INPUT_FIELDS:
        if name in GROUP_STARTS:
            groups.append((GROUP_STARTS[name], []))
        groups[-1][1].append(name)
    return groups


FIELD_GROUPS = _field_groups()

DATETIME_WIDGET = forms.DateTimeInput(attrs={"type": "datetime-local"}, format=DATETIME_FORMAT)
_DATETIMES = ("quoted_at", "valid_until", "capacity_available_from")
_WIDGETS: dict[str, type[forms.Widget] | forms.Widget] = {
    **dict.fromkeys(_DATETIMES, DATETIME_WIDGET),
    "cancellation_terms": forms.Textarea(attrs={"rows": 2}),
    "notes": forms.Textarea(attrs={"rows": 2}),
}
_MODEL_FIELDS = forms.fields_for_model(Quote, fields=QUOTE_INPUT_FIELDS, widgets=_WIDGETS)


class QuoteForm(forms.Form):
    """Every commercial and topology field of a quote; `staff` adds provider and flags."""

    def __init__(
        self,
        *args: Any,
        staff: bool = False,
        rfq: Rfq | None = None,
        providers: Any = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(*args, **kwargs)
        for name in QUOTE_INPUT_FIELDS:
            self.fields[name] = copy.deepcopy(_MODEL_FIELDS[name])
        for name in _DATETIMES:
            field_of(self, name, forms.DateTimeField).input_formats = _DATETIME_FORMATS
        accelerator = field_of(self, "accelerator", forms.ModelChoiceField)
        accelerator.queryset = Accelerator.objects.order_by("vendor", "name")
        if rfq is not None and rfq.accelerators.exists():
            accelerator.queryset = rfq.accelerators.order_by("vendor", "name")
        accelerator.empty_label = "choose the accelerator"
        if rfq is not None and rfq.capacity_models:
            field_of(self, "capacity_model", forms.ChoiceField).choices = [("", "---------")] + [
                (value, label)
                for value, label in CapacityModel.choices
                if value in rfq.capacity_models
            ]
        if rfq is not None and (regions := rfq.region_list()):
            # One region from the RFQ's list: typed free text once saved the whole list as
            # one "region" that no comparison could place (the service refuses it too).
            self.fields["region"] = forms.ChoiceField(
                choices=[("", "choose one of the RFQ's regions")] + [(r, r) for r in regions],
                label=self.fields["region"].label,
                help_text="The region of the capacity, one of those the RFQ asks for; quote "
                "each region separately.",
            )
        for name in (
            "min_commitment_gpus",
            "term_months",
            "currency",
            "gpus_per_node",
            "private_endpoint",
            "price_unit",
        ):
            self.fields[name].required = False
        use_decimal_text(self)  # Prices typed as text, a decimal comma read or refused
        if not self.is_bound and "quoted_at" not in self.initial:
            self.initial["quoted_at"] = timezone.now().strftime(DATETIME_FORMAT)
        if staff:
            self.fields["provider"] = forms.ModelChoiceField(
                queryset=providers if providers is not None else Provider.objects.all(),
                help_text="The organisation offering this capacity.",
            )
            self.fields["is_public_list_price"] = forms.BooleanField(
                required=False,
                label="Public list price",
                help_text="Tick if the price comes from a public price list, not a negotiated "
                "offer.",
            )

        # Shown only with the warning (a price far from the market): ticking it confirms it.
        self.fields["confirm_unusual_price"] = forms.BooleanField(
            required=False,
            label="Confirm this unusual price",
            help_text="The price is far from the market; tick to confirm it is right. The "
            "quote keeps a flag and every comparison row using it carries a warning.",
        )

    @property
    def asks_price_confirmation(self) -> bool:
        return bool(self.is_bound and ("confirm_unusual_price" in self.errors))

    def groups(self) -> list[tuple[str, list[forms.BoundField]]]:
        head = [self[n] for n in ("provider", "is_public_list_price") if n in self.fields]
        groups = [(title, [self[n] for n in names]) for title, names in FIELD_GROUPS]
        if self.asks_price_confirmation:
            title, offer = groups[0]
            groups[0] = (title, [*offer, self["confirm_unusual_price"]])
        return [("Provider", head), *groups] if head else groups


def quote_initial(quote: Quote) -> dict[str, Any]:
    """Values of an existing version, to prefill the revise form."""
    initial = {name: getattr(quote, name) for name in QUOTE_INPUT_FIELDS}
    initial["accelerator"] = quote.accelerator_id
    initial["quoted_at"] = timezone.now().strftime(DATETIME_FORMAT)
    if quote.valid_until:
        initial["valid_until"] = quote.valid_until.strftime(DATETIME_FORMAT)
    return initial


def quote_initial_from_rfq(rfq: Rfq) -> dict[str, Any]:
    """What the RFQ already says: the vendor answers it instead of typing it again.

    Only unambiguous values: the accelerator, capacity model and region when the RFQ names
    exactly one; the RFQ's term and GPU count become the quote's term and minimum commitment
    only when that one capacity model is a commitment (an on-demand answer has neither)."""
    initial: dict[str, Any] = {}
    accelerator_ids = list(rfq.accelerators.values_list("pk", flat=True)[:2])
    if len(accelerator_ids) == 1:
        initial["accelerator"] = accelerator_ids[0]
    if len(rfq.capacity_models) == 1:
        initial["capacity_model"] = rfq.capacity_models[0]
    if len(regions := rfq.region_list()) == 1:
        initial["region"] = regions[0]
    brief = rfq.brief
    if brief is not None and brief.private_endpoint_required:
        # the brief decides it: "not stated" would make the offer ineligible
        initial["private_endpoint"] = PrivateEndpoint.YES
    committed = len(rfq.capacity_models) == 1 and rfq.capacity_models[0] not in ELASTIC_CAPACITY
    if rfq.term_months and committed:
        initial["term_months"] = rfq.term_months
        if rfq.gpus_needed:
            initial["min_commitment_gpus"] = rfq.gpus_needed
    return initial


class QuoteWithdrawForm(forms.Form):
    reason = forms.CharField(
        required=False,
        max_length=500,
        widget=forms.Textarea(attrs={"rows": 2}),
        help_text="Why the offer is withdrawn (shown to procurement).",
    )
