"""Forms of the benchmark pages: they validate shape; the services enforce the rules."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from django import forms

from benchmarks.models import BenchmarkPlanStep, Phase
from briefs import access as briefs_access
from briefs.models import Precision, WorkloadBrief
from catalog import access as catalog_access
from catalog.choices import CapacityModel, PriceUnit
from catalog.models import Accelerator, ModelApiRoute, ModelProfile, Quote
from core.forms import field_of

if TYPE_CHECKING:
    from accounts.models import User

# The brief's precision vocabulary: a result counts as measured only at the brief's precision.
PRECISION_CHOICES = [("", "— as the file says —"), *Precision.choices]
SERVING_ENGINES = ["vLLM", "SGLang", "TensorRT-LLM", "TGI", "Triton", "llama.cpp", "Ollama"]
MAX_GPUS = 100_000
MAX_CONCURRENCY = 1_000_000


def quote_price(quote: Quote) -> str:
    """The price as a person reads it: two decimals, its currency and its unit
    ('2.49 USD per GPU-hour', '19.92 USD per node-hour', '250,000.00 USD per node')."""
    currency = quote.currency
    if quote.capacity_model == CapacityModel.PURCHASE and quote.price_per_node is not None:
        return f"{quote.price_per_node:,.2f} {currency} per node (purchase)"
    if quote.price_unit != PriceUnit.GPU_HOUR and quote.price_as_quoted is not None:
        return f"{quote.price_as_quoted:,.2f} {currency} {quote.get_price_unit_display()}"
    if quote.price_per_gpu_hour is not None:
        return f"{quote.price_per_gpu_hour:,.2f} {currency} per GPU-hour"
    return "no price"


def quote_label(quote: Quote) -> str:
    """'Northwind · NW H100 8x eu-west on-demand · H100 SXM 80GB · 2.49 USD per GPU-hour ·
    eu-west-1 · v3': the options of one provider differ by title, price, region and version."""
    title = quote.title or quote.get_capacity_model_display()
    parts = [str(quote.provider), title, str(quote.accelerator), quote_price(quote)]
    parts.append(quote.region or "region not stated")
    return " · ".join(parts) + f" · v{quote.version}"


class QuoteChoiceField(forms.ModelChoiceField["Quote"]):
    """Quotes grouped by provider (one <optgroup> each), each option with its title, price
    and unit, region and version, so two versions of one offer are told apart."""

    def label_from_instance(self, obj: Quote) -> str:
        return quote_label(obj)

    def group_by_provider(self) -> None:
        groups: dict[str, list[tuple[int, str]]] = {}
        for quote in self.queryset or ():
            groups.setdefault(str(quote.provider), []).append((quote.pk, quote_label(quote)))
        empty = [("", self.empty_label)] if self.empty_label is not None else []
        self.choices = [*empty, *groups.items()]


class MultipleFileInput(forms.ClearableFileInput):
    allow_multiple_selected = True


class MultipleFileField(forms.FileField):
    """Several files under one name (Django's documented pattern): a list once cleaned."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("widget", MultipleFileInput())
        super().__init__(*args, **kwargs)

    def clean(self, data: Any, initial: Any = None) -> Any:
        one = super().clean
        if isinstance(data, list | tuple):
            return [one(item, initial) for item in data]
        return [one(data, initial)]


class UploadForm(forms.Form):
    """The upload asks for what no benchmark tool records: GPUs, how many, how served.

    It takes several files at once (the files of one sweep): each is uploaded with the same
    fields, and refused or stored on its own."""

    file = MultipleFileField(
        allow_empty_file=True,  # the service refuses empty files with a clear, audited reason
        label="Benchmark result files",
        help_text="vLLM, SGLang, GenAI-Perf, AIPerf, GuideLLM, LLMPerf, MLPerf, nvidia-smi…",
    )
    quote = QuoteChoiceField(queryset=None, required=False, empty_label="— no quote —")
    accelerator: forms.ModelChoiceField[Accelerator] = forms.ModelChoiceField(
        queryset=Accelerator.objects.order_by("vendor", "name"),
        required=False,
        to_field_name="slug",
        empty_label="— from the quote —",
    )
    gpu_count = forms.IntegerField(
        min_value=1,
        max_value=MAX_GPUS,
        required=False,  # required for a run on GPUs (clean); a hosted API has none
        label="GPUs used",
        help_text="GPUs serving the run.",
    )
    api_route: forms.ModelChoiceField[ModelApiRoute] = forms.ModelChoiceField(
        queryset=None,
        required=False,
        label="Hosted API measured",
        empty_label="— none: the run used GPUs —",
        help_text="For a run against a provider's model API (e.g. LLMPerf against an "
        "OpenAI-compatible endpoint): no quote, accelerator, GPU count or precision is asked.",
    )
    brief: forms.ModelChoiceField[WorkloadBrief] = forms.ModelChoiceField(
        queryset=None, required=False, empty_label="— none —"
    )
    phase = forms.TypedChoiceField(
        choices=Phase.choices,
        coerce=int,
        initial=Phase.THROUGHPUT_LATENCY,
        required=False,
        empty_value=int(Phase.THROUGHPUT_LATENCY),  # type: ignore[arg-type]  # any value is allowed; the stub says str
    )
    model_profile: forms.ModelChoiceField[ModelProfile] = forms.ModelChoiceField(
        queryset=ModelProfile.objects.order_by("family", "name"),
        required=False,
        to_field_name="slug",
        label="Model measured",
        empty_label="— as the file says —",
        help_text="Needed only when the file does not say which model it measured.",
    )
    precision = forms.ChoiceField(
        choices=PRECISION_CHOICES,
        required=False,
        label="Precision measured",
        help_text="The weights' precision (quantisation) the model was served at; needed "
        "only when the file does not state it.",
    )
    serving_engine = forms.CharField(max_length=60, required=False, help_text="e.g. vLLM")
    engine_version = forms.CharField(
        max_length=60,
        required=False,
        label="Engine version",
        help_text="e.g. 0.8.5 (no benchmark tool records it reliably).",
    )
    parallelism = forms.CharField(max_length=60, required=False, help_text="e.g. TP=4, PP=1")
    notes = forms.CharField(widget=forms.Textarea(attrs={"rows": 3}), required=False)
    sweep = forms.CharField(
        max_length=100,
        required=False,
        label="Sweep name",
        help_text="Files of one sweep, one point each (e.g. vLLM runs at concurrency 1, 8 and "
        "32): upload them together under one name (or later files under the same name and "
        "candidate), and comparisons read them as one result with several operating points.",
    )

    concurrency = forms.IntegerField(
        min_value=1,
        max_value=MAX_CONCURRENCY,
        required=False,
        label="Concurrency measured",
        help_text="Requests in flight during the run; needed only when the file does not state "
        "it (AIPerf's CSV does not), so a sweep's points are placed by concurrency. One "
        "value is one file's: upload files that do not state theirs one at a time.",
    )
    request_rate = forms.FloatField(
        min_value=0.001,
        required=False,
        label="Request rate measured",
        help_text="Requests offered per second, for a rate-driven run whose file does not "
        "state it.",
    )

    def __init__(self, *args: Any, user: User, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)

        quotes = catalog_access.quotes_for(user).current()
        quote_field = field_of(self, "quote", QuoteChoiceField)
        quote_field.queryset = quotes.order_by(
            "provider__name", "accelerator__name", "title", "-version"
        )
        quote_field.group_by_provider()
        routes = catalog_access.api_routes_for(user).filter(is_active=True)
        field_of(self, "api_route", forms.ModelChoiceField).queryset = routes.order_by(
            "provider__name", "model_name"
        )
        briefs = briefs_access.briefs_for(user).order_by("-created_at")
        field_of(self, "brief", forms.ModelChoiceField).queryset = briefs
        self.fields["serving_engine"].widget.attrs["list"] = "serving-engines"

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        if data.get("engine_version") and not data.get("serving_engine"):
            # A version of no named engine would read as an engine called "0.9.1".
            self.add_error(
                "serving_engine",
                f"Name the engine version {data['engine_version']} is of (vLLM, SGLang, …).",
            )
        if data.get("api_route"):
            if data.get("quote") or data.get("accelerator"):
                self.add_error(
                    "api_route",
                    "A run against a hosted API names its API route alone: leave the quote "
                    "and the accelerator empty.",
                )
            if data.get("gpu_count") is not None:
                self.add_error(
                    "gpu_count", "A hosted API runs on the provider's GPUs: leave this empty."
                )
            return data
        if not data.get("quote") and not data.get("accelerator") and "quote" not in self.errors:
            self.add_error(
                "quote",
                "Choose the quote the benchmark ran on, or its accelerator (or, for a run "
                "against a hosted API, its API route).",
            )
        if data.get("gpu_count") is None and "gpu_count" not in self.errors:
            self.add_error("gpu_count", "Say how many GPUs served the run.")
        return data


class PlanCreateForm(forms.Form):
    quote = QuoteChoiceField(queryset=None)
    brief: forms.ModelChoiceField[WorkloadBrief] = forms.ModelChoiceField(queryset=None)

    def __init__(self, *args: Any, user: User, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        quotes = catalog_access.quotes_for(user).current()
        field_of(self, "quote", forms.ModelChoiceField).queryset = quotes.order_by(
            "provider__name", "accelerator__name"
        )
        briefs = briefs_access.briefs_for(user).order_by("-created_at")
        field_of(self, "brief", forms.ModelChoiceField).queryset = briefs
        field_of(self, "quote", QuoteChoiceField).group_by_provider()


class StepCheckForm(forms.Form):
    status = forms.ChoiceField(choices=BenchmarkPlanStep.Status.choices)
    notes = forms.CharField(widget=forms.Textarea(attrs={"rows": 2}), required=False)
    evidence_url = forms.URLField(max_length=500, required=False, assume_scheme="https")


class ResultModelForm(forms.Form):
    """The model a parsed file measured and its precision, when the file does not say; the
    service requires each field the result still asks for."""

    model_profile: forms.ModelChoiceField[ModelProfile] = forms.ModelChoiceField(
        queryset=ModelProfile.objects.order_by("family", "name"),
        to_field_name="slug",
        label="Model measured",
        required=False,
    )
    precision = forms.ChoiceField(
        choices=PRECISION_CHOICES, required=False, label="Precision measured"
    )


class PublishedUploadForm(forms.Form):
    """A round of published MLPerf Inference results: the repository's archive."""

    archive = forms.FileField(
        label="Results archive",
        help_text=(
            "A .zip or .tar.gz of an MLPerf Inference results repository (or part of it), in "
            "its own layout: closed/SUBMITTER/results/SYSTEM/BENCHMARK/SCENARIO/"
            "performance/run_1/mlperf_log_summary.txt and closed/SUBMITTER/systems/"
            "SYSTEM.json."
        ),
    )
