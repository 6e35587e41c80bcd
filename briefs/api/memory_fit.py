"""POST /api/v1/memory-fit/: the stateless memory-fit calculator (PRODUCT.md's contract).

Any logged-in user may call it, vendors included: it reads only catalog data. The serializer
checks shape (types, required fields, allowed ids); the engine checks the numbers; both give
a 400 with a message per field, never a 500.
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import OpenApiExample, extend_schema
from rest_framework import serializers
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.http import api_user
from briefs import services as services_briefs
from engine.memory.spec import MODES
from engine.precision import PRECISION_NAMES

_MAX_INT = 2**31 - 1
_PRECISION_HELP = "one of " + ", ".join(PRECISION_NAMES)


def _int(**kwargs: Any) -> serializers.IntegerField:
    kwargs.setdefault("max_value", _MAX_INT)
    return serializers.IntegerField(required=False, allow_null=True, **kwargs)


def _float(**kwargs: Any) -> serializers.FloatField:
    return serializers.FloatField(required=False, allow_null=True, **kwargs)


class PrecisionField(serializers.CharField):
    """A precision id, case-insensitive ("BF16" → "bf16")."""

    def to_internal_value(self, data: Any) -> str:
        value = str(super().to_internal_value(data)).strip().lower()
        if value not in PRECISION_NAMES:
            raise serializers.ValidationError(f"Unknown precision '{data}'; use {_PRECISION_HELP}.")
        return value


class MemoryFitInputSerializer(serializers.Serializer[None]):
    """The calculator's body: a catalog model slug or custom numbers, an accelerator, load."""

    model = serializers.SlugField(required=False, allow_null=True, allow_blank=True, max_length=80)
    params_b = _float(min_value=0.001, max_value=100_000)
    active_params_b = _float(min_value=0.001, max_value=100_000)
    layers = _int(min_value=1)
    kv_heads = _int(min_value=1)
    head_dim = _int(min_value=1)
    hidden_size = _int(min_value=1)
    attention_heads = _int(min_value=1)
    mla_latent_dim = _int(min_value=1)
    sliding_window = _int(min_value=1)
    sliding_window_layers = _int(min_value=0)
    max_context = _int(min_value=1)
    mode = serializers.ChoiceField(
        choices=list(MODES),
        default="inference",
        error_messages={"invalid_choice": f"Unknown mode '{{input}}'; use {', '.join(MODES)}."},
    )
    weight_precision = PrecisionField(default="bf16", max_length=10)
    kv_precision = PrecisionField(default="bf16", max_length=10)
    context_tokens = serializers.IntegerField(min_value=1, max_value=100_000_000)
    concurrent_sequences = serializers.IntegerField(min_value=1, max_value=10_000_000, default=1)
    accelerator = serializers.SlugField(max_length=80)
    gpus = _int(min_value=1, max_value=100_000)
    overhead_gb = _float(min_value=0, max_value=10_000)
    safety_margin = _float(min_value=0, max_value=0.9)
    micro_batch = _int(min_value=1, max_value=10_000_000)
    zero_stage = _int(min_value=0, max_value=3)
    activation_checkpointing = serializers.BooleanField(required=False, allow_null=True)
    lora_rank = _int(min_value=1, max_value=65_536)


class MemoryFitOutputSerializer(serializers.Serializer[dict[str, Any]]):
    """The answer (documents the schema; the engine's FitResult.to_dict() fills it)."""

    model = serializers.DictField()
    accelerator = serializers.DictField()
    mode = serializers.CharField()
    weights_gb = serializers.FloatField()
    kv_bytes_per_token = serializers.IntegerField()
    kv_cache_gb = serializers.FloatField()
    overhead_gb = serializers.FloatField(help_text="Per GPU.")
    margin_gb = serializers.FloatField(help_text="Per GPU, kept free.")
    total_gb = serializers.FloatField()
    per_gpu_gb = serializers.FloatField()
    usable_gb_per_gpu = serializers.FloatField()
    gpus_required = serializers.IntegerField()
    nodes_required = serializers.IntegerField()
    crosses_nodes = serializers.BooleanField()
    fits = serializers.BooleanField()
    headroom_pct = serializers.FloatField()
    max_concurrent_sequences = serializers.IntegerField()
    fit_curve = serializers.ListField(child=serializers.DictField())
    breakdown = serializers.DictField(child=serializers.FloatField())
    assumptions = serializers.DictField()
    notes = serializers.ListField(child=serializers.CharField())


class MemoryFitApi(APIView):
    """Size a model on an accelerator: weights, KV cache, GPUs required, headroom."""

    permission_classes = [IsAuthenticated]

    @extend_schema(
        request=MemoryFitInputSerializer,
        responses={200: MemoryFitOutputSerializer},
        examples=[
            OpenApiExample(
                "Llama 3.1 70B on H100",
                value={
                    "model": "llama-3-1-70b",
                    "mode": "inference",
                    "weight_precision": "bf16",
                    "kv_precision": "bf16",
                    "context_tokens": 8192,
                    "concurrent_sequences": 32,
                    "accelerator": "h100-sxm-80gb",
                },
                request_only=True,
            )
        ],
    )
    def post(self, request: Request) -> Response:
        serializer = MemoryFitInputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = {k: v for k, v in serializer.validated_data.items() if v is not None and v != ""}
        return Response(
            services_briefs.memory_fit_calculate(data=data, acting_user=api_user(request))
        )
