"""Forms for briefs and the memory-fit calculator. They validate shape; services enforce rules.

The brief form is one form with a fieldset per group of `brief_rules.GROUPS`; each fieldset
says which workload classes it applies to (`data-classes`), so `static/js/briefs.js` can hide
the others. Without JavaScript every fieldset shows, labelled with the classes it applies to.
"""

from __future__ import annotations

from typing import Any

from django import forms

from briefs.models import BilledTokenType, TrafficTrace, WorkloadBrief, WorkloadClass
from briefs.rules import (
    BRIEF_FIELDS,
    FIELD_LABELS,
    GROUPS,
    RANGE_BASES,
    RANGE_LABELS,
    brief_errors,
    range_fields,
)
from catalog.models import ModelProfile
from core import workloads
from core.forms import field_of
from engine.memory.spec import DEFAULT_OVERHEAD_GB, DEFAULT_SAFETY_MARGIN, MODES
from engine.precision import PRECISION_NAMES

HELP = {
    "title": "A name the team recognises, e.g. “Support chat assistant”.",
    "context_window_tokens": "The longest prompt + answer the service must accept.",
    "p95_input_tokens": "95 % of requests send at most this many tokens.",
    "concurrency": "Sequences in flight at the traffic peak.",
    "batch_size": "Sequences processed together (batch and evaluation jobs).",
    "billed_token_type": "The tokens the team pays for: every unit cost reads “per 1M accepted "
    "output tokens” (or input, or input + output); API routes are normalised the same way.",
    "max_error_rate": "Optional. A benchmark point failing a larger share of its requests "
    "misses the service level (0.01 = 1 %). Empty: no error-rate target.",
    "serving_engine": "Optional, e.g. vLLM, SGLang, TensorRT-LLM, TGI. A benchmark of another "
    "engine counts only as a proxy; an engine that caches prefixes lowers GPU rows' prefill "
    "by the comparison's cached share of input tokens. Empty: benchmarks of any engine count.",
    "serving_engine_version": "Optional, e.g. 0.6.3. A benchmark of another major version "
    "(0.5 against 0.6, 1 against 2) counts only as a proxy.",
    "peak_to_average": "Peak traffic divided by average traffic (1 = flat).",
    "expected_mfu": "Model FLOPs utilisation, a fraction (0.4 = 40 %).",
    "lora_rank": "Adapter fine-tuning only.",
    "sharding": "zero1, zero2, zero3 (= FSDP full shard) or ddp.",
    "allowed_regions": "Comma-separated, e.g. eu-west, eu-central. Empty: any region.",
    "platform_fte": "People running drivers, CUDA, serving stack, scheduler (0.5 = half a person).",
    "node_failure_rate_per_day": "Failures of one node per day; the cost multiplies it by the "
    "run's node count (0.01 = one failure per node every 100 days).",
    "horizon_months": "The planning horizon, 1 to 120 months. A reserved term is committed "
    "in full whatever the horizon.",
}
RANGE_HELP = {
    "monthly_accepted_outputs": "Accepted outputs per month in the class's own unit: answers "
    "(accepted requests, not tokens) for inference, retrieval and evaluation; images or clips "
    "for media; fine-tuned models for adapter fine-tuning. The output tokens of one answer go "
    "in “Output tokens per request”; the page shows the tokens per month and requests per second "
    "they derive to.",
    "acceptance_rate": "Share of outputs that pass quality and safety filters (0..1).",
    "failure_rate": "Share of requests that fail and must be retried (0..1).",
    "utilisation": "Busy share of the billed GPU time (0..1).",
}


def _class_names(classes: frozenset[str]) -> str:
    if classes == workloads.ALL:
        return "all workload classes"
    return ", ".join(str(label) for value, label in WorkloadClass.choices if value in classes)


class BriefForm(forms.ModelForm[WorkloadBrief]):
    """Every brief field, grouped; `to_data()` gives the service its input."""

    allowed_regions = forms.CharField(required=False, max_length=500)
    confirm_volume = forms.BooleanField(
        required=False,
        label="I confirm this volume",
        help_text="Asked only when the volume implies a very large fleet.",
    )

    class Meta:
        model = WorkloadBrief
        fields = list(BRIEF_FIELDS)
        widgets = {
            "description": forms.Textarea(attrs={"rows": 3}),
            "residency_notes": forms.Textarea(attrs={"rows": 2}),
        }

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        model_field = field_of(self, "model", forms.ModelChoiceField)
        model_field.queryset = ModelProfile.objects.order_by("family", "name")
        model_field.empty_label = "— no model yet (or not an LLM) —"
        for name, field in self.fields.items():
            field.label = FIELD_LABELS.get(name, field.label)
            field.help_text = HELP.get(name, "")
        for base in RANGE_BASES:
            for part, name in zip(("low", "likely", "high"), range_fields(base), strict=True):
                self.fields[name].label = f"{RANGE_LABELS[base]}, {part}"
        self.fields["workload_class"].widget.attrs["data-brief-class"] = "1"
        # A brief written before the choice existed, or a class without tokens: output.
        self.fields["billed_token_type"].required = False

    def clean_allowed_regions(self) -> list[str]:
        raw = self.cleaned_data.get("allowed_regions") or ""
        regions = [r.strip() for r in raw.replace(";", ",").split(",") if r.strip()]
        if any(len(r) > 60 for r in regions):
            raise forms.ValidationError("A region code is at most 60 characters.")
        return list(dict.fromkeys(regions))

    def clean_billed_token_type(self) -> str:
        return self.cleaned_data.get("billed_token_type") or BilledTokenType.OUTPUT

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean() or {}
        for name, messages in brief_errors(cleaned).items():
            if name in self.fields and name not in self.errors:
                for message in messages:
                    self.add_error(name, message)
        return cleaned

    def to_data(self) -> dict[str, Any]:
        return {name: self.cleaned_data.get(name) for name in BRIEF_FIELDS}

    def fieldsets(self) -> list[dict[str, Any]]:
        """Groups for the template: bound fields, range rows, and the classes they apply to."""
        out = []
        range_names = {n for base in RANGE_BASES for n in range_fields(base)}
        for group in GROUPS:
            ranges = []
            if group.key == "volume":
                ranges = [
                    {
                        "label": RANGE_LABELS[base],
                        "help": RANGE_HELP[base],
                        "fields": [self[name] for name in range_fields(base)],
                    }
                    for base in RANGE_BASES
                ]
            out.append(
                {
                    "key": group.key,
                    "title": group.title,
                    "classes": " ".join(sorted(group.classes)),
                    "applies_to": _class_names(group.classes),
                    "for_all": group.classes == workloads.ALL,
                    "fields": [self[n] for n in group.fields if n not in range_names],
                    "ranges": ranges,
                }
            )
        return out


def brief_initial(brief: WorkloadBrief) -> dict[str, Any]:
    """Initial form values copying a brief (for the revise page)."""
    initial = {name: getattr(brief, name) for name in BRIEF_FIELDS if name != "model"}
    initial["model"] = brief.model_id
    initial["allowed_regions"] = ", ".join(brief.allowed_regions or [])
    return initial


def _opt_int(label: str, **kwargs: Any) -> forms.IntegerField:
    return forms.IntegerField(label=label, required=False, **kwargs)


def _opt_float(label: str, **kwargs: Any) -> forms.FloatField:
    return forms.FloatField(label=label, required=False, **kwargs)


class MemoryFitForm(forms.Form):
    """The calculator: a catalog model or a custom one, an accelerator, the load."""

    model = forms.ChoiceField(label="Model", required=False)
    params_b = _opt_float("Parameters (billions)", help_text="Custom model: total parameters.")
    active_params_b = _opt_float("Active parameters (billions)", help_text="MoE only.")
    layers = _opt_int("Layers")
    kv_heads = _opt_int("KV heads")
    head_dim = _opt_int("Head dimension")
    mla_latent_dim = _opt_int("MLA latent size", help_text="DeepSeek-style MLA only (576).")
    sliding_window = _opt_int("Sliding window (tokens)")
    sliding_window_layers = _opt_int("Layers using the window")
    mode = forms.ChoiceField(label="Mode", choices=[(m, m) for m in MODES], initial="inference")
    weight_precision = forms.ChoiceField(
        label="Weight precision", choices=[(p, p.upper()) for p in PRECISION_NAMES], initial="bf16"
    )
    kv_precision = forms.ChoiceField(
        label="KV-cache precision",
        choices=[(p, p.upper()) for p in PRECISION_NAMES],
        initial="bf16",
    )
    context_tokens = forms.IntegerField(
        label="Context tokens",
        min_value=1,
        initial=8192,
        help_text="Inference: p95 input + output. Training: sequence length.",
    )
    concurrent_sequences = forms.IntegerField(label="Concurrent sequences", min_value=1, initial=1)
    accelerator = forms.ChoiceField(label="Accelerator")
    gpus = _opt_int("GPUs", min_value=1, help_text="Empty: find the smallest count that fits.")
    overhead_gb = _opt_float(
        "Runtime overhead per GPU (GB)", min_value=0, initial=DEFAULT_OVERHEAD_GB
    )
    safety_margin = _opt_float(
        "Safety margin (share of memory)", min_value=0, max_value=0.9, initial=DEFAULT_SAFETY_MARGIN
    )
    lora_rank = _opt_int("LoRA rank", min_value=1, help_text="LoRA / QLoRA only (default 16).")
    micro_batch = _opt_int("Micro-batch per GPU", min_value=1, help_text="Training modes only.")

    def __init__(
        self,
        *args: Any,
        models: list[tuple[str, str]],
        accelerators: list[tuple[str, str]],
        **kwargs: Any,
    ) -> None:
        super().__init__(*args, **kwargs)
        field_of(self, "model", forms.ChoiceField).choices = [
            ("", "Custom model (enter its numbers below)"),
            *models,
        ]
        field_of(self, "accelerator", forms.ChoiceField).choices = accelerators

    def to_data(self) -> dict[str, Any]:
        return {k: v for k, v in self.cleaned_data.items() if v is not None and v != ""}


class TrafficTraceForm(forms.Form):
    """A request trace and the window of traffic it stands for."""

    file = forms.FileField(
        label="Trace file",
        help_text=(
            "The Azure LLM inference trace's CSV, BurstGPT's CSV, or a CSV / JSON Lines file "
            "with arrival_s (or arrival_time), input_tokens, output_tokens and an optional "
            "tenant or route."
        ),
    )
    window = forms.ChoiceField(
        label="It represents",
        choices=TrafficTrace.Window.choices,
        initial=TrafficTrace.Window.DAY,
        help_text="The product scales the trace to the brief's monthly volume and says how.",
    )
