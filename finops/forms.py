"""Forms of the FinOps pages: shape only (the services enforce the rules)."""

from __future__ import annotations

from datetime import date
from decimal import Decimal
from typing import Any

from django import forms

from finops.focus.actuals import parse_month

KINDS = (
    ("csv", "CSV of months (month, accepted_outputs, acceptance_share)"),
    ("vllm", "vLLM /metrics scrape (Prometheus text)"),
)


class MonthField(forms.CharField):
    """A month written YYYY-MM (the first day of it, as a date)."""

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("max_length", 7)
        kwargs.setdefault("help_text", "YYYY-MM, e.g. 2026-03")
        super().__init__(**kwargs)

    def clean(self, value: Any) -> date | None:
        text = super().clean(value)
        if not text:
            return None
        try:
            return parse_month(text)
        except ValueError as exc:
            raise forms.ValidationError(f"{exc}.") from None


def _share_field(**kwargs: Any) -> forms.DecimalField:
    return forms.DecimalField(
        min_value=Decimal("0.000001"),
        max_value=Decimal(1),
        max_digits=7,
        decimal_places=6,
        help_text="Accepted / completed outputs, as the team measured it (0.92 for 92 %).",
        **kwargs,
    )


def _ids_field(label: str) -> forms.CharField:
    """Ids matching a bill's rows to the decision, one per line or separated by commas."""
    return forms.CharField(label=label, required=False, widget=forms.Textarea({"rows": 2}))


class BillingImportForm(forms.Form):
    month = MonthField(label="Billing month")
    file = forms.FileField(label="FOCUS cost-and-usage file (CSV or Parquet)")
    provider_names = forms.CharField(
        label="Provider name(s) on the bill",
        help_text="As the file writes ServiceProviderName; several separated by commas.",
    )
    account_ids = _ids_field("Billing or sub-account ids")
    tags = _ids_field("Tags (key=value)")
    sku_ids = _ids_field("SKU ids")
    resource_ids = _ids_field("Resource ids")
    gpus_per_instance = forms.IntegerField(
        label="GPUs per billed instance",
        min_value=1,
        max_value=1024,
        initial=1,
        help_text="Hours billed per instance count this many GPU-hours (unit without 'GPU').",
    )

    def clean_provider_names(self) -> list[str]:
        return [p.strip() for p in self.cleaned_data["provider_names"].split(",") if p.strip()]


class ActualOutputsForm(forms.Form):
    month = MonthField()
    accepted_outputs = forms.DecimalField(min_value=0, max_digits=24, decimal_places=4)
    acceptance_share = _share_field()


class ActualsUploadForm(forms.Form):
    kind = forms.ChoiceField(choices=KINDS, label="File kind")
    file = forms.FileField(label="File (a CSV, or the end-of-month scrape)")
    start_file = forms.FileField(label="Start-of-month scrape (vLLM, optional)", required=False)
    month = MonthField(required=False, help_text="For a scrape: YYYY-MM")
    acceptance_share = _share_field(required=False)

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        if data.get("kind") == "vllm":
            for name in ("month", "acceptance_share"):
                if data.get(name) in (None, ""):
                    self.add_error(name, "A scrape needs its month and the acceptance share.")
        return data
