"""Forms of the comparison pages: they check shape; the services enforce the rules."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django import forms

from catalog.models import CapacityModel
from core.forms import field_of
from procurement.models import Comparison
from procurement.snapshot import assumptions as rules


class ComparisonFilterForm(forms.Form):
    status = forms.ChoiceField(
        required=False, choices=[("", "Any status"), *Comparison.Status.choices]
    )
    brief = forms.IntegerField(required=False, min_value=1, widget=forms.HiddenInput)


def _range_fields(name: str, spec: rules.Ranged) -> dict[str, forms.Field]:
    return {
        f"{name}_{part}": forms.FloatField(
            required=False,
            min_value=spec.lo,
            max_value=spec.hi,
            label=f"{spec.label} ({part})",
            help_text=spec.help if part == "low" else "",
        )
        for part in ("low", "likely", "high")
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
    # Candidate filters: narrow "every current offer" before it is frozen.
    regions = forms.CharField(
        required=False,
        max_length=500,
        help_text="Only these regions, comma-separated prefixes (eu-west matches eu-west-2).",
    )
    capacity_models = forms.MultipleChoiceField(
        required=False,
        choices=[*CapacityModel.choices, ("api", "Model API")],
        widget=forms.CheckboxSelectMultiple,
        help_text="Only these capacity models (none ticked: all).",
    )
    accelerators = forms.CharField(
        required=False,
        max_length=500,
        help_text="Only these accelerators (slugs, comma-separated).",
    )
    providers = forms.CharField(
        required=False, max_length=500, help_text="Only these providers (slugs, comma-separated)."
    )

    def __init__(
        self,
        *args: Any,
        quote_ids: Iterable[int] = (),
        route_ids: Iterable[int] = (),
        **kwargs: Any,
    ) -> None:
        super().__init__(*args, **kwargs)
        field_of(self, "quotes", forms.ChoiceField).choices = [(i, str(i)) for i in quote_ids]
        field_of(self, "api_routes", forms.ChoiceField).choices = [(i, str(i)) for i in route_ids]
        for name in rules.FORM_RANGED:
            if name == "peak_to_average":
                ranged = rules.RANGED[name]
                self.fields[name] = forms.FloatField(
                    required=False,
                    min_value=ranged.lo,
                    max_value=ranged.hi,
                    label=ranged.label,
                    help_text="Overrides the brief's figure.",
                )
            else:
                self.fields.update(_range_fields(name, rules.RANGED[name]))
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
        names = [
            f"{n}_{p}"
            for n in rules.FORM_RANGED
            if n != "peak_to_average"
            for p in ("low", "likely", "high")
        ]
        return [*names, "peak_to_average", *rules.FORM_SCALARS]

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        for name in rules.FORM_RANGED:
            if name == "peak_to_average":
                continue
            parts = [data.get(f"{name}_{p}") for p in ("low", "likely", "high")]
            given = [p is not None for p in parts]
            if any(given) and not all(given):
                self.add_error(f"{name}_low", "Give low, likely and high together, or none.")
        return data

    def candidate_filters(self) -> dict[str, list[str]]:
        data = self.cleaned_data
        out: dict[str, list[str]] = {}
        for name in ("regions", "accelerators", "providers"):
            words = [w.strip() for w in (data.get(name) or "").split(",") if w.strip()]
            if words:
                out[name] = words
        if data.get("capacity_models"):
            out["capacity_models"] = list(data["capacity_models"])
        return out

    def assumptions(self) -> dict[str, Any]:
        """The overrides the user filled in, in the service's shape."""
        data = self.cleaned_data
        out: dict[str, Any] = {}
        for name in rules.FORM_RANGED:
            if name == "peak_to_average":
                if data.get(name) is not None:
                    out[name] = data[name]
                continue
            parts = {p: data.get(f"{name}_{p}") for p in ("low", "likely", "high")}
            if all(v is not None for v in parts.values()):
                out[name] = parts
        for name in rules.FORM_SCALARS:
            if data.get(name) is not None:
                out[name] = data[name]
        return out
