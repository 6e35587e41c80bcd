"""POST /api/v1/memory-fit/: hand-computed values, per-field 400s, junk never 500, roles."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rest_framework.test import APIClient

pytestmark = pytest.mark.django_db
URL = "/api/v1/memory-fit/"
LLAMA_70B = {
    "model": "llama-3-1-70b",
    "mode": "inference",
    "weight_precision": "bf16",
    "kv_precision": "bf16",
    "context_tokens": 8192,
    "concurrent_sequences": 32,
    "accelerator": "h100-sxm-80gb",
}
CONTRACT_KEYS = {
    "weights_gb",
    "kv_bytes_per_token",
    "kv_cache_gb",
    "overhead_gb",
    "total_gb",
    "per_gpu_gb",
    "usable_gb_per_gpu",
    "gpus_required",
    "fits",
    "headroom_pct",
    "max_concurrent_sequences",
    "assumptions",
    "fit_curve",
    "notes",
}


@pytest.fixture
def client_as(api_client, catalog):
    def _as(user):
        if user is not None:
            api_client.force_authenticate(user)
        return api_client

    return _as


def test_llama_70b_bf16_on_h100_matches_hand_computation(client_as, lead):
    response = client_as(lead).post(URL, LLAMA_70B, format="json")
    assert response.status_code == 200, response.json()
    body = response.json()
    assert set(body) >= CONTRACT_KEYS
    # 2 K/V × 80 layers × 8 KV heads × 128 head dim × 2 bytes
    assert body["kv_bytes_per_token"] == 327_680
    assert body["weights_gb"] == pytest.approx(141.2)  # 70.6 B params × 2 bytes
    assert body["kv_cache_gb"] == pytest.approx(327_680 * 8192 * 32 / 1e9)  # 85.899 GB
    # M-2: the datasheet's 80 is GiB-sized: 80 × 1.073741824 × 0.9 − 2 = 75.309411 GB
    usable = 80 * 2**30 / 1e9 * 0.9 - 2
    assert body["usable_gb_per_gpu"] == pytest.approx(usable)
    assert body["gpus_required"] == 4  # 2 GPUs: 70.6 + 42.95 = 113.55 > 75.31
    # 141.2 / 4 + 85.899 / 4 (8 KV heads split 4 ways)
    assert body["per_gpu_gb"] == pytest.approx(56.774836, abs=1e-5)
    assert body["headroom_pct"] == pytest.approx((usable - 56.77483648) / usable * 100, abs=1e-4)
    assert body["total_gb"] == pytest.approx((56.77483648 + 2) * 4, abs=1e-4)
    assert body["max_concurrent_sequences"] == 59  # (75.309411 − 35.3) // 0.67108864 = 59.6
    assert body["fits"] is True
    assert body["overhead_gb"] == 2.0


def test_assumptions_state_overhead_margin_and_bytes_per_precision(client_as, lead):
    body = client_as(lead).post(URL, LLAMA_70B, format="json").json()
    assumptions = body["assumptions"]
    assert assumptions["overhead_gb_per_gpu"] == 2.0
    assert assumptions["safety_margin"] == 0.1
    assert assumptions["weight_bytes_per_param"] == 2.0
    assert assumptions["kv_bytes_per_value"] == 2.0
    assert assumptions["accelerator_memory_gb"] == 80
    assert body["model"]["slug"] == "llama-3-1-70b"
    assert body["accelerator"]["slug"] == "h100-sxm-80gb"


def test_custom_mha_model_on_a100_40gb(client_as, engineer):
    body = {
        "params_b": 7,
        "layers": 32,
        "kv_heads": 32,
        "head_dim": 128,
        "context_tokens": 4096,
        "concurrent_sequences": 4,
        "accelerator": "a100-sxm-40gb",
    }
    result = client_as(engineer).post(URL, body, format="json").json()
    assert result["kv_bytes_per_token"] == 524_288  # 2 × 32 × 32 × 128 × 2
    assert result["weights_gb"] == pytest.approx(14.0)
    assert result["kv_cache_gb"] == pytest.approx(8.589935, abs=1e-6)
    assert result["gpus_required"] == 1
    # M-2: 40 GiB = 42.949673 GB; × 0.9 − 2 = 36.654706 GB usable
    usable = 40 * 2**30 / 1e9 * 0.9 - 2
    assert result["usable_gb_per_gpu"] == pytest.approx(usable)
    assert result["headroom_pct"] == pytest.approx((usable - 22.589934592) / usable * 100, abs=1e-4)
    assert result["max_concurrent_sequences"] == 10  # (36.654706 − 14) // 2.147483648 = 10.5
    assert result["model"]["name"] == "Custom model"


def test_deepseek_mla_kv_per_token(client_as, lead):
    body = {**LLAMA_70B, "model": "deepseek-v3", "accelerator": "h200-sxm-141gb"}
    result = client_as(lead).post(URL, body, format="json").json()
    assert result["kv_bytes_per_token"] == 576 * 61 * 2  # 70,272


def test_fp8_weights_halve_the_weights(client_as, lead):
    body = {**LLAMA_70B, "weight_precision": "FP8", "kv_precision": "fp8"}
    result = client_as(lead).post(URL, body, format="json").json()
    # M-1, now that the profile carries its vocabulary: the quantised body halves, while the
    # embeddings, the output head and the norms stay in 16 bits (2 × 128,256 × 8,192 + …)
    kept = (2 * 128_256 * 8192 + (2 * 80 + 1) * 8192) / 1e9
    assert result["weights_gb"] == pytest.approx((70.6 - kept) * 1 + kept * 2)
    assert result["kv_bytes_per_token"] == 163_840
    assert result["assumptions"]["weight_precision"] == "fp8"


def test_qlora_base_is_four_bit_with_constants(client_as, lead):
    body = {**LLAMA_70B, "mode": "qlora", "context_tokens": 4096, "concurrent_sequences": 1}
    result = client_as(lead).post(URL, body, format="json").json()
    assert result["weights_gb"] == pytest.approx(70.6 * (0.5 + (8 / 64 + 32 / 16384) / 8), 1e-6)
    assert result["kv_cache_gb"] == 0


def test_given_gpu_count_is_evaluated_exactly(client_as, lead):
    result = client_as(lead).post(URL, {**LLAMA_70B, "gpus": 2}, format="json").json()
    assert result["gpus_required"] == 2
    assert result["fits"] is False
    assert any("smallest count that fits is 4" in note for note in result["notes"])


@pytest.mark.parametrize(
    ("change", "field", "text"),
    [
        ({"model": "no-such-model"}, "model", "Unknown model 'no-such-model'"),
        ({"accelerator": "no-such-gpu"}, "accelerator", "Unknown accelerator 'no-such-gpu'"),
        ({"context_tokens": -5}, "context_tokens", "greater than or equal to 1"),
        ({"context_tokens": "many"}, "context_tokens", "valid integer"),
        ({"concurrent_sequences": 0}, "concurrent_sequences", "greater than or equal to 1"),
        ({"weight_precision": "fp7"}, "weight_precision", "Unknown precision 'fp7'"),
        ({"kv_precision": "int3"}, "kv_precision", "Unknown precision 'int3'"),
        ({"mode": "dreaming"}, "mode", "Unknown mode 'dreaming'"),
        ({"gpus": 0}, "gpus", "greater than or equal to 1"),
        ({"safety_margin": 2}, "safety_margin", "less than or equal to 0.9"),
        ({"overhead_gb": 80}, "overhead_gb", "leave no usable memory"),
        ({"context_tokens": None}, "context_tokens", "may not be null"),
    ],
)
def test_invalid_input_is_a_400_naming_the_field(client_as, lead, change, field, text):
    body = {**LLAMA_70B, **change}
    response = client_as(lead).post(URL, body, format="json")
    assert response.status_code == 400, response.content
    payload = response.json()
    assert field in payload["fields"], payload
    assert text in " ".join(payload["fields"][field])
    assert payload["detail"]


def test_missing_required_fields_are_each_named(client_as, lead):
    payload = client_as(lead).post(URL, {}, format="json").json()
    assert {"context_tokens", "accelerator"} <= set(payload["fields"])


def test_custom_model_needs_its_four_numbers(client_as, lead):
    body = {"params_b": 7, "context_tokens": 1024, "accelerator": "l4-24gb"}
    response = client_as(lead).post(URL, body, format="json")
    assert response.status_code == 400
    assert set(response.json()["fields"]) == {"layers", "kv_heads", "head_dim"}


def test_slug_and_custom_numbers_together_are_refused(client_as, lead):
    response = client_as(lead).post(URL, {**LLAMA_70B, "layers": 12}, format="json")
    assert response.status_code == 400
    assert "model" in response.json()["fields"]


def test_engine_rejects_inconsistent_custom_model_per_field(client_as, lead):
    body = {
        "params_b": 7,
        "layers": 32,
        "kv_heads": 8,
        "head_dim": 128,
        "sliding_window_layers": 40,
        "context_tokens": 1024,
        "accelerator": "l4-24gb",
    }
    response = client_as(lead).post(URL, body, format="json")
    assert response.status_code == 400
    assert "sliding_window_layers" in response.json()["fields"]


def test_body_that_is_not_an_object_is_a_400(client_as, lead):
    response = client_as(lead).post(URL, [1, 2], format="json")
    assert response.status_code == 400
    response = client_as(lead).post(URL, "null", content_type="application/json")
    assert response.status_code == 400


@pytest.mark.parametrize(
    "who", ["lead", "engineer", "finance", "security", "admin_member", "vendor_a", "vendor_b"]
)
def test_every_logged_in_role_may_call_it(client_as, request, who):
    response = client_as(request.getfixturevalue(who)).post(URL, LLAMA_70B, format="json")
    assert response.status_code == 200


def test_anonymous_is_refused(client_as):
    assert client_as(None).post(URL, LLAMA_70B, format="json").status_code in (401, 403)


@pytest.mark.parametrize("method", ["get", "put", "patch", "delete"])
def test_only_post_is_allowed(client_as, lead, method):
    assert getattr(client_as(lead), method)(URL).status_code == 405


JUNK = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=12),
    st.lists(st.integers(), max_size=3),
    st.dictionaries(st.text(max_size=4), st.integers(), max_size=2),
)
KEYS = [
    *LLAMA_70B,
    "params_b",
    "layers",
    "kv_heads",
    "head_dim",
    "gpus",
    "mla_latent_dim",
    "sliding_window",
    "sliding_window_layers",
    "active_params_b",
    "overhead_gb",
    "safety_margin",
    "micro_batch",
    "zero_stage",
    "lora_rank",
    "activation_checkpointing",
]


@settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    overrides=st.dictionaries(st.sampled_from(KEYS), JUNK, max_size=5),
    drop=st.sets(st.sampled_from(list(LLAMA_70B)), max_size=2),
)
def test_junk_bodies_never_cause_a_500(catalog, lead, overrides, drop):
    client = APIClient()
    client.force_authenticate(lead)
    body = {k: v for k, v in LLAMA_70B.items() if k not in drop}
    body.update(overrides)
    response = client.post(URL, body, format="json")
    assert response.status_code in (200, 400), (body, response.content)
    if response.status_code == 400:
        assert response.json()["fields"] or response.json()["detail"]


@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
@given(raw=st.binary(max_size=64))
def test_raw_junk_bytes_never_cause_a_500(catalog, lead, raw):
    client = APIClient()
    client.force_authenticate(lead)
    response = client.post(URL, raw, content_type="application/json")
    assert response.status_code == 400
