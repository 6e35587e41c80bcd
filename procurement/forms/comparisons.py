"""Forms of the comparison pages: they check shape; the services enforce the rules."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django import forms

from core.forms import field_of
from procurement.models import Comparison
from procurement.services.comparisons import FILTER_KEYS, MAX_IDS, FilterChoices
from procurement.snapshot import assumptions as rules


class ComparisonFilterForm(forms.Form):
    status = forms.ChoiceField(
        required=False, choices=[("", "Any status"), *Comparison.Status.choices]
    )
    brief = forms.IntegerField(required=False, min_value=1, widget=forms.HiddenInput)


def _filter_field(label: str, help_text: str = "None ticked: all.") -> forms.Field:
    return forms.MultipleChoiceField(
        required=False, widget=forms.CheckboxSelectMultiple, label=label, help_text=help_text
    )


def _offer_filters(form: forms.Form, choices: FilterChoices | None) -> None:
    """Each filter offers what the current offers hold (the service's FilterChoices)."""
    for name in FILTER_KEYS:
        field_of(form, name, forms.ChoiceField).choices = (
            list(getattr(choices, name)) if choices is not None else []
        )


def _chosen_filters(data: dict[str, Any]) -> dict[str, list[str]]:
    return {name: list(data[name]) for name in FILTER_KEYS if data.get(name)}


class CandidateFilterForm(forms.Form):
    """The new-comparison page's first step (GET): which candidates to list. A form that
    comes back with `filtered` is the lead's choice; without it the page starts from the
    service's first filters (the brief's regions)."""

    brief = forms.IntegerField(min_value=1, widget=forms.HiddenInput)
    filtered = forms.BooleanField(required=False, initial=True, widget=forms.HiddenInput)
    regions = _filter_field("Region", "None ticked: every region.")
    capacity_models = _filter_field("Capacity model")
    accelerators = _filter_field("Accelerator")
    providers = _filter_field("Provider")
    rfqs = _filter_field(
        "Only the answers to", "The quotes vendors entered for the RFQ (no API route)."
    )

    def __init__(self, *args: Any, filter_choices: FilterChoices, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        _offer_filters(self, filter_choices)
        self.inside = filter_choices.inside

    def filters(self) -> dict[str, list[str]]:
        return _chosen_filters(self.cleaned_data)


PARTS = ("low", "likely", "high")
# The peak-to-average ratio is one figure on this form (it overrides the brief's); every other
# ranged assumption is given as low, likely and high.
PEAK = "peak_to_average"
RANGES = tuple(name for name in rules.FORM_RANGED if name != PEAK)


def _range_fields(name: str, spec: rules.Ranged) -> dict[str, forms.Field]:
    return {
        f"{name}_{part}": forms.FloatField(
            required=False,
            min_value=spec.lo,
            max_value=spec.hi,
            label=f"{spec.label} ({part})",
            help_text=spec.help if part == "low" else "",
        )
        for part in PARTS
    }


class ComparisonCreateForm(forms.Form):
    """Brief, candidates (ids), optional title, seed and assumption overrides."""

    brief = forms.IntegerField(min_value=1, widget=forms.HiddenInput)
    title = forms.CharField(required=False, max_length=200)
    seed = forms.IntegerField(
        required=False,
        min_value=0,
        max_value=2**63 - 1,
        help_text="Leave empty for a random seed; the same seed reproduces the same numbers.",
    )
    quotes = forms.TypedMultipleChoiceField(
        required=False, coerce=int, widget=forms.CheckboxSelectMultiple
    )
    api_routes = forms.TypedMultipleChoiceField(
        required=False, coerce=int, widget=forms.CheckboxSelectMultiple
    )
    # More candidates match than the page lists: the comparison takes every one the filters
    # leave (no id is sent, L8).
    by_filters = forms.BooleanField(required=False, widget=forms.HiddenInput)
    # The candidate filters the rows were listed with (the page's first step), carried so
    # the service records them and a recompute applies them again.
    regions = forms.MultipleChoiceField(required=False, widget=forms.MultipleHiddenInput)
    capacity_models = forms.MultipleChoiceField(required=False, widget=forms.MultipleHiddenInput)
    accelerators = forms.MultipleChoiceField(required=False, widget=forms.MultipleHiddenInput)
    providers = forms.MultipleChoiceField(required=False, widget=forms.MultipleHiddenInput)
    rfqs = forms.MultipleChoiceField(required=False, widget=forms.MultipleHiddenInput)

    def __init__(
        self,
        *args: Any,
        quote_ids: Iterable[int] = (),
        route_ids: Iterable[int] = (),
        filter_choices: FilterChoices | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(*args, **kwargs)
        field_of(self, "quotes", forms.ChoiceField).choices = [(i, str(i)) for i in quote_ids]
        field_of(self, "api_routes", forms.ChoiceField).choices = [(i, str(i)) for i in route_ids]
        _offer_filters(self, filter_choices)
        for name in RANGES:
            self.fields.update(_range_fields(name, rules.RANGED[name]))
        ratio = rules.RANGED[PEAK]
        self.fields[PEAK] = forms.FloatField(
            required=False,
            min_value=ratio.lo,
            max_value=ratio.hi,
            label=ratio.label,
            help_text="Overrides the brief's figure.",
        )
        for name in rules.FORM_SCALARS:
            spec = rules.SCALARS[name]
            self.fields[name] = forms.FloatField(
                required=False,
                min_value=spec.lo,
                max_value=spec.hi,
                label=spec.label,
                help_text=f"Default {spec.default:g}. {spec.help}".strip(),
            )

    def override_field_names(self) -> list[str]:
        return [*(f"{n}_{p}" for n in RANGES for p in PARTS), PEAK, *rules.FORM_SCALARS]

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        for name, what in (("quotes", "quotes"), ("api_routes", "API routes")):
            if len(data.get(name) or ()) > MAX_IDS:
                self.add_error(
                    name,
                    f"At most {MAX_IDS:,} {what} can be compared at once; "
                    f"{len(data[name]):,} are ticked. Narrow the filters above.",
                )
        for name in RANGES:
            parts = [data.get(f"{name}_{p}") for p in PARTS]
            given = [p is not None for p in parts]
            if any(given) and not all(given):
                self.add_error(f"{name}_low", "Give low, likely and high together, or none.")
        return data

    def candidate_filters(self) -> dict[str, list[str]]:
        return _chosen_filters(self.cleaned_data)

    def assumptions(self) -> dict[str, Any]:
        """The overrides the user filled in, in the service's shape."""
        data = self.cleaned_data
        out: dict[str, Any] = {}
        for name in RANGES:
            parts = {p: data.get(f"{name}_{p}") for p in PARTS}
            if all(v is not None for v in parts.values()):
                out[name] = parts
        for name in (PEAK, *rules.FORM_SCALARS):
            if data.get(name) is not None:
                out[name] = data[name]
        return out
