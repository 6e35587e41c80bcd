"""Forms for the catalog pages: compare, model profiles, providers, API routes, FX, RFQs."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any, TypeVar

from django import forms
from django.db.models import Model
from django.utils import timezone

from accounts.models import Provider
from catalog.forms.quotes import DATETIME_FORMAT, DATETIME_WIDGET
from catalog.models import Accelerator, CapacityModel, ModelApiRoute, ModelProfile
from catalog.services.imports import ImportKind
from catalog.services.reference import API_ROUTE_FIELDS, MODEL_FIELDS, PROVIDER_FIELDS
from core.forms import field_of, use_decimal_text

if TYPE_CHECKING:
    from django.db.models import QuerySet

    from briefs.models import WorkloadBrief

_M = TypeVar("_M", bound=Model)
_DT_FORMATS = [DATETIME_FORMAT, "%Y-%m-%d %H:%M:%S", "%Y-%m-%d"]


class CompareForm(forms.Form):
    """Two to four accelerators, side by side (`?a=..&b=..&c=..&d=..`)."""

    a = forms.ChoiceField(label="First", required=False)
    b = forms.ChoiceField(label="Second", required=False)
    c = forms.ChoiceField(label="Third", required=False)
    d = forms.ChoiceField(label="Fourth", required=False)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        choices = [("", "—"), *Accelerator.objects.values_list("slug", "name")]
        for name in "abcd":
            field_of(self, name, forms.ChoiceField).choices = choices

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean() or {}
        slugs = [cleaned[n] for n in "abcd" if cleaned.get(n)]
        if len(set(slugs)) != len(slugs):
            raise forms.ValidationError("Pick each accelerator only once.")
        if len(slugs) < 2:
            raise forms.ValidationError("Pick at least two accelerators to compare.")
        cleaned["slugs"] = slugs
        return cleaned


class AcceleratorListForm(forms.Form):
    SORTS = [
        ("", "Vendor, name"),
        ("-memory", "Memory, largest first"),
        ("-bandwidth", "Bandwidth, highest first"),
        ("-bf16", "BF16 TFLOPS, highest first"),
        ("-fp8", "FP8 TFLOPS, highest first"),
        ("-year", "Newest first"),
        ("tdp", "Power, lowest first"),
        ("name", "Name"),
    ]
    q = forms.CharField(required=False, label="Name contains", max_length=60)
    vendor = forms.ChoiceField(required=False)
    segment = forms.ChoiceField(
        required=False, choices=[("", "any segment"), *Accelerator.Segment.choices]
    )
    min_memory_gb = forms.FloatField(required=False, min_value=0, label="Min memory (GB)")
    min_bandwidth_tbps = forms.FloatField(required=False, min_value=0, label="Min TB/s")
    fp8 = forms.BooleanField(required=False, label="FP8")
    fp4 = forms.BooleanField(required=False, label="FP4")
    sort = forms.CharField(required=False, max_length=20)

    def __init__(self, *args: Any, vendors: list[str], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        field_of(self, "vendor", forms.ChoiceField).choices = [
            ("", "any vendor"),
            *((v, v) for v in vendors),
        ]


class _ShapeOnly(forms.ModelForm[_M]):
    """A model's fields, shape only: the service applies the rules (uniqueness included), with
    clearer messages, so the model's own checks are not run here."""

    def _post_clean(self) -> None:
        pass


class ModelProfileForm(_ShapeOnly[ModelProfile]):
    aliases = forms.CharField(
        required=False,
        max_length=4000,
        widget=forms.Textarea(attrs={"rows": 2}),
        help_text="Other names benchmark files give this model, one per line or separated by "
        "commas: its Hugging Face id (org/Model-Name), Ollama name (model:size), LiteLLM name. "
        "A file naming any of them is tied to this profile.",
    )

    class Meta:
        model = ModelProfile
        fields = MODEL_FIELDS
        help_texts = {
            "params_total_b": "Total parameters, in billions.",
            "params_active_b": "Parameters active per token (MoE); equal to total for dense.",
            "kv_heads": "Key/value heads (GQA); at most the attention heads.",
            "head_dim": "Dimension of one attention head (usually 64 to 256).",
            "mla_latent_dim": "Only for MLA models (DeepSeek): cached latent size per layer.",
            "sliding_window": "Window size, for models whose layers use sliding-window attention.",
            "sliding_window_layers": "How many layers use the sliding window.",
            "max_context": "Longest context the model supports, in tokens.",
            "vocab_size": "Vocabulary size (config.json `vocab_size`): a quantised checkpoint "
            "keeps the embeddings and output head in 16 bits. Blank: not counted, and said.",
        }
        widgets = {"notes": forms.Textarea(attrs={"rows": 2})}

    def clean_aliases(self) -> list[str]:
        text = self.cleaned_data.get("aliases") or ""
        return [part.strip() for part in re.split(r"[\n,]+", text) if part.strip()]


class ProviderForm(_ShapeOnly[Provider]):
    class Meta:
        model = Provider
        fields = PROVIDER_FIELDS
        help_texts = {"slug": "Short identifier used in files and the API, e.g. 'northwind'."}


class ApiRouteForm(_ShapeOnly[ModelApiRoute]):
    processing_regions = forms.CharField(
        required=False,
        max_length=600,
        help_text="Where the provider processes requests, comma-separated: geographies (EU, US), "
        "countries (DE) or cloud regions (eu-west-1). Empty: not stated, so a brief with "
        "allowed regions refuses the route.",
    )

    class Meta:
        model = ModelApiRoute
        fields = ("provider", *API_ROUTE_FIELDS)
        widgets = {"quoted_at": DATETIME_WIDGET, "valid_until": DATETIME_WIDGET}
        help_texts = {
            "model_name": "The model as the API names it, e.g. 'llama-3.3-70b-instruct'.",
            "model_profile": "The catalog model it serves, if any (for memory and quality).",
            "price_input_per_m_tokens": "Price per million input tokens.",
            "price_output_per_m_tokens": "Price per million output tokens.",
            "price_cached_input_per_m_tokens": "Price per million cached input tokens.",
            "price_cache_write_per_m_tokens": "Price per million input tokens written to the "
            "prompt cache, when the provider prices writes apart (e.g. 1.25 × input). Empty: "
            "writes are billed as ordinary input.",
            "quoted_at": "When the price was captured (UTC).",
            "private_endpoint": "Private link or VPC peering to the API, without the public "
            "internet. Not stated: a brief that requires a private endpoint cannot choose it.",
        }

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        for name in ("quoted_at", "valid_until"):
            field_of(self, name, forms.DateTimeField).input_formats = _DT_FORMATS
        self.fields["private_endpoint"].required = False  # empty: not stated (the service)
        use_decimal_text(self)  # "2,29" is read as 2.29, never 229; "1,234" is refused
        if not self.is_bound:
            self.initial.setdefault("quoted_at", timezone.now().strftime(DATETIME_FORMAT))

    def clean_processing_regions(self) -> list[str]:
        text = self.cleaned_data.get("processing_regions") or ""
        return [part.strip() for part in text.split(",") if part.strip()]


class FxRateForm(forms.Form):
    currency = forms.CharField(max_length=3, help_text="ISO 4217 code, e.g. EUR.")
    rate_to_base = forms.DecimalField(
        max_digits=18,
        decimal_places=8,
        label="Rate to base",
        help_text="How many units of the base currency one unit of this currency buys.",
    )
    as_of = forms.DateField(widget=forms.DateInput(attrs={"type": "date"}), initial=None)

    def __init__(self, *args: Any, base_currency: str = "USD", **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["rate_to_base"].label = f"1 unit = ? {base_currency}"
        use_decimal_text(self)  # A decimal comma read where unambiguous, else refused
        if not self.is_bound:
            self.initial.setdefault("as_of", timezone.now().date())


class RfqForm(forms.Form):
    title = forms.CharField(max_length=200)
    brief: forms.ModelChoiceField[WorkloadBrief] = forms.ModelChoiceField(
        queryset=None, required=False, help_text="Optional."
    )
    requirements = forms.CharField(
        required=False,
        widget=forms.Textarea(attrs={"rows": 4}),
        help_text="What providers must know: workload, model, latency targets, data boundary.",
    )
    accelerators = forms.ModelMultipleChoiceField(
        queryset=Accelerator.objects.order_by("vendor", "name"),
        required=False,
        widget=forms.CheckboxSelectMultiple,
        help_text="Acceptable GPUs; none ticked = any.",
    )
    gpus_needed = forms.IntegerField(required=False, min_value=1, label="GPUs needed")
    region = forms.CharField(required=False, max_length=120)
    capacity_models = forms.MultipleChoiceField(
        choices=CapacityModel.choices,
        required=False,
        widget=forms.CheckboxSelectMultiple,
        help_text="Capacity models you will consider; none ticked = any.",
    )
    term_months = forms.IntegerField(required=False, min_value=0, label="Term (months)")
    deadline = forms.DateTimeField(
        widget=DATETIME_WIDGET,
        input_formats=_DT_FORMATS,
        help_text="Answers are accepted until then (UTC).",
    )
    providers = forms.ModelMultipleChoiceField(
        queryset=Provider.objects.all(),
        widget=forms.CheckboxSelectMultiple,
        help_text="Providers invited to answer; each sees only its own answers.",
    )

    def __init__(
        self, *args: Any, briefs: QuerySet[WorkloadBrief] | None = None, **kwargs: Any
    ) -> None:
        super().__init__(*args, **kwargs)
        field_of(self, "brief", forms.ModelChoiceField).queryset = briefs


class RfqReopenForm(forms.Form):
    deadline = forms.DateTimeField(
        widget=DATETIME_WIDGET, input_formats=_DT_FORMATS, label="New deadline (UTC)"
    )


class ImportForm(forms.Form):
    kind = forms.ChoiceField(choices=ImportKind.CHOICES, label="File format")
    file = forms.FileField(help_text="UTF-8 CSV or JSON, at most 20 MB.")
    captured_on = forms.DateField(
        widget=forms.DateInput(attrs={"type": "date"}),
        label="Prices captured on",
        help_text="The date of the price list (default today).",
    )
    provider = forms.ModelChoiceField(
        queryset=Provider.objects.all(),
        required=False,
        help_text="SkyPilot only: the cloud this vms.csv lists.",
    )
    only_providers = forms.ModelMultipleChoiceField(
        queryset=Provider.objects.all(),
        required=False,
        label="LiteLLM: only these providers",
        help_text="LiteLLM only: import these providers' models (default: every provider we "
        "know, matched by identifier or name).",
    )
    all_or_nothing = forms.BooleanField(
        required=False,
        label="All or nothing",
        help_text="Refuse the whole file when any row is wrong. Always on for our price-list "
        "template; for SkyPilot and LiteLLM files the good rows are imported and the bad ones "
        "listed unless this is ticked.",
    )
    background = forms.BooleanField(
        required=False,
        label="Import in the background",
        help_text="A worker imports the file and a page shows its progress (always for files "
        "over 2 MB).",
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if not self.is_bound:
            self.initial.setdefault("captured_on", timezone.now().date())
