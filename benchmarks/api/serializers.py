"""Serializers of the benchmark-results API: input validates shape only; services decide."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from benchmarks import figures
from benchmarks.forms import MAX_CONCURRENCY, MAX_GPUS
from benchmarks.models import BenchmarkResult, Phase
from benchmarks.services.asked import result_asks
from benchmarks.services.batches import MAX_FILES_PER_UPLOAD
from benchmarks.workload import model_warning, workload_summary
from briefs.models import Precision, WorkloadBrief
from catalog.models import Accelerator, ModelApiRoute, ModelProfile, Quote
from core.api.fields import SlugLookupField


def candidate_errors(attrs: dict[str, Any]) -> dict[str, list[str]]:
    """Where the run ran, by field: on GPUs (a quote or an accelerator, and their count), or
    against a hosted API (its route alone). Empty when the candidate is well stated."""
    gpus = bool(attrs.get("quote") or attrs.get("accelerator"))
    if attrs.get("api_route"):
        errors: dict[str, list[str]] = {}
        if gpus:
            errors["api_route"] = [
                "A run against a hosted API names its API route alone: leave the quote and "
                "the accelerator out."
            ]
        if attrs.get("gpu_count") is not None:
            errors["gpu_count"] = [
                "A hosted API runs on the provider's GPUs: leave the GPU count out."
            ]
        return errors
    errors = {}
    if not gpus:
        errors["quote"] = [
            "Give the quote id the benchmark ran on, or the accelerator slug (or, for a run "
            "against a hosted API, its api_route id)."
        ]
    if attrs.get("gpu_count") is None:
        errors["gpu_count"] = ["This field is required."]
    return errors


class BenchmarkResultInputSerializer(serializers.Serializer[None]):
    """Multipart body: `file`, plus `quote` (id) or `accelerator` (slug), `gpu_count`, …"""

    file = serializers.FileField(allow_empty_file=True, use_url=False)
    quote = serializers.PrimaryKeyRelatedField(
        queryset=Quote.objects.select_related("accelerator"), allow_null=True, default=None
    )
    accelerator = SlugLookupField(
        slug_field="slug", queryset=Accelerator.objects.all(), allow_null=True, default=None
    )
    gpu_count = serializers.IntegerField(
        min_value=1,
        max_value=MAX_GPUS,
        required=False,
        allow_null=True,
        default=None,
        help_text="GPUs serving the run; required unless `api_route` is given.",
    )
    api_route = serializers.PrimaryKeyRelatedField(
        queryset=ModelApiRoute.objects.select_related("provider", "model_profile"),
        required=False,
        allow_null=True,
        default=None,
        help_text="For a run against a hosted model API (e.g. LLMPerf against an "
        "OpenAI-compatible endpoint): the API route (id) instead of a quote, an accelerator "
        "and a GPU count. Its precision is not asked; per-GPU figures are never computed.",
    )
    brief = serializers.PrimaryKeyRelatedField(
        queryset=WorkloadBrief.objects.all(), allow_null=True, default=None
    )
    phase = serializers.ChoiceField(choices=Phase.choices, default=Phase.THROUGHPUT_LATENCY)
    model_profile = SlugLookupField(
        slug_field="slug",
        queryset=ModelProfile.objects.all(),
        allow_null=True,
        default=None,
        help_text="The model measured (slug); required only when the file does not say.",
    )
    precision = serializers.ChoiceField(
        choices=Precision.choices,
        required=False,
        allow_blank=True,
        default="",
        help_text="The weights' precision measured (bf16, fp8, int4…); required only when the "
        "file does not state it, refused when it contradicts the file.",
    )
    serving_engine = serializers.CharField(
        max_length=60, required=False, allow_blank=True, default=""
    )
    engine_version = serializers.CharField(
        max_length=60, required=False, allow_blank=True, default=""
    )
    parallelism = serializers.CharField(max_length=60, required=False, allow_blank=True, default="")
    notes = serializers.CharField(max_length=5000, required=False, allow_blank=True, default="")
    sweep = serializers.CharField(
        max_length=100,
        required=False,
        allow_blank=True,
        default="",
        help_text="Single-point files of one sweep share a name (same candidate): comparisons "
        "read them as one result with several operating points.",
    )

    concurrency = serializers.IntegerField(
        min_value=1,
        max_value=MAX_CONCURRENCY,
        required=False,
        allow_null=True,
        default=None,
        help_text="Requests in flight during the run; used only when the file does not state "
        "it (AIPerf's CSV does not), refused when it contradicts the file.",
    )
    request_rate = serializers.FloatField(
        min_value=0.001,
        required=False,
        allow_null=True,
        default=None,
        help_text="Requests offered per second; used only when the file does not state it, "
        "refused when it contradicts the file.",
    )

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        if errors := candidate_errors(attrs):
            raise serializers.ValidationError(errors)
        attrs["phase"] = int(attrs["phase"])
        return attrs


class BenchmarkResultBatchInputSerializer(BenchmarkResultInputSerializer):
    """Several files (one `file` part each) with the same fields: the files of one sweep."""

    file = serializers.ListField(  # type: ignore[assignment]  # a list of the parent's file
        child=serializers.FileField(allow_empty_file=True, use_url=False),
        min_length=1,
        max_length=MAX_FILES_PER_UPLOAD,
        help_text=f"Up to {MAX_FILES_PER_UPLOAD} files, one multipart `file` part each.",
    )


class BenchmarkResultOutputSerializer(serializers.ModelSerializer[BenchmarkResult]):
    format = serializers.CharField(source="format_id", read_only=True)
    accelerator: serializers.SlugRelatedField[Accelerator] = serializers.SlugRelatedField(
        slug_field="slug", read_only=True
    )
    uploaded_by = serializers.CharField(source="uploaded_by.username", read_only=True)
    figures = serializers.SerializerMethodField()
    model_profile: serializers.SlugRelatedField[ModelProfile] = serializers.SlugRelatedField(
        slug_field="slug", read_only=True, allow_null=True
    )
    workload = serializers.SerializerMethodField()
    asks = serializers.SerializerMethodField()
    on_api = serializers.BooleanField(
        read_only=True,
        help_text="A run against a hosted API: no accelerator, no GPU count, no per-GPU figure.",
    )
    model_warning = serializers.SerializerMethodField()
    url = serializers.CharField(source="get_absolute_url", read_only=True)
    download_url = serializers.SerializerMethodField()

    class Meta:
        model = BenchmarkResult
        fields = [
            "id",
            "url",
            "status",
            "progress",
            "format",
            "tool_version",
            "model_name",
            "model_profile",
            "precision",
            "engine_version",
            "workload",
            "asks",
            "model_warning",
            "original_name",
            "sha256",
            "size_bytes",
            "quote",
            "accelerator",
            "gpu_count",
            "api_route",
            "on_api",
            "brief",
            "phase",
            "serving_engine",
            "parallelism",
            "notes",
            "sweep",
            "figures",
            "metrics",
            "discrepancies",
            "parse_notes",
            "error",
            "uploaded_by",
            "created_at",
            "parsed_at",
            "download_url",
        ]
        read_only_fields = fields

    def get_figures(self, obj: BenchmarkResult) -> dict[str, Any]:
        return figures.key_figures(obj.metrics or {}, obj.gpu_count)

    def get_workload(self, obj: BenchmarkResult) -> str:
        return workload_summary(obj)

    def get_asks(self, obj: BenchmarkResult) -> list[str]:
        """Fields a large file parsed after its upload still needs (set on its page)."""
        return result_asks(obj)

    def get_model_warning(self, obj: BenchmarkResult) -> str | None:
        """Set when the result will not count as measured for its brief (another model)."""
        return model_warning(obj)

    def get_download_url(self, obj: BenchmarkResult) -> str:
        return f"{obj.get_absolute_url()}download/"
