"""Uploads that ask only what a file cannot say (findings X7, X10, X11).

Files are written here in the real formats (SGLang JSON Lines with `server_info`, an all-failed
`vllm bench serve` result); the figures are made up.
"""

from __future__ import annotations

import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from knox.models import AuthToken

from benchmarks.models import BenchmarkResult
from tests.factories import ModelProfileFactory
from tests.parsers.test_parser_round3 import _all_failed, _pd_line
from tests.parsers.test_parser_synthetic import sglang_line

pytestmark = pytest.mark.django_db


@pytest.fixture
def token_client(api_client, engineer):
    _, key = AuthToken.objects.create(user=engineer)
    api_client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    return api_client


def _upload(client, h100, data: bytes, name: str, **fields):
    return client.post(
        "/api/v1/benchmark-results/",
        {
            "accelerator": h100.slug,
            "gpu_count": 1,
            **fields,
            "file": SimpleUploadedFile(name, data),
        },
        format="multipart",
    )


@pytest.fixture
def qwen3b(db):
    return ModelProfileFactory(
        slug="qwen2-5-3b",
        name="Qwen2.5 3B",
        params_total_b=3.09,
        params_active_b=3.09,
        aliases=["Qwen/Qwen2.5-3B-Instruct"],
        published_precision="bf16",
    )


def test_x7_sglang_pd_upload_takes_the_model_from_the_file(
    token_client, h100, qwen3b, private_storage
):
    """X7: the PD file's model is read from server_info; no profile is asked, the stored name
    is the file's, and it binds to the profile that name means."""
    data = (json.dumps(_pd_line()) + "\n").encode()
    response = _upload(token_client, h100, data, "pd.jsonl", precision="bf16")
    assert response.status_code == 201, response.json()
    result = BenchmarkResult.objects.get()
    assert result.model_name == "Qwen/Qwen2.5-3B-Instruct"
    assert result.model_profile == qwen3b


def test_x11_dtype_auto_is_resolved_from_the_profile_and_stated(
    token_client, h100, qwen3b, private_storage
):
    """X11: `dtype: auto` is not asked when the profile publishes its precision; the result
    takes that precision and its notes say where it came from."""
    data = (json.dumps(_pd_line()) + "\n").encode()
    response = _upload(token_client, h100, data, "pd.jsonl")
    assert response.status_code == 201, response.json()
    result = BenchmarkResult.objects.get()
    assert result.precision == "bf16"
    assert any("dtype auto" in n and "Qwen2.5 3B" in n for n in result.parse_notes)


def test_x11_dtype_auto_without_a_published_precision_is_still_asked(
    token_client, h100, qwen3b, private_storage
):
    """X11: with no published precision on the profile, `auto` says nothing: asked."""
    qwen3b.published_precision = ""
    qwen3b.save()
    data = (json.dumps(_pd_line()) + "\n").encode()
    response = _upload(token_client, h100, data, "pd.jsonl")
    assert response.status_code == 400
    assert "precision" in response.json()["fields"]
    assert not BenchmarkResult.objects.exists()


def test_x11_sglang_quantization_states_the_precision(token_client, h100, qwen3b, private_storage):
    """X11: SGLang's `quantization: fp8` server argument is the precision; nothing asked."""
    line = sglang_line(4.0)
    line["server_info"] = {"model_path": "Qwen/Qwen2.5-3B-Instruct", "quantization": "fp8"}
    response = _upload(token_client, h100, (json.dumps(line) + "\n").encode(), "agg.jsonl")
    assert response.status_code == 201, response.json()
    assert BenchmarkResult.objects.get().precision == "fp8"


def test_x10_all_failed_run_is_not_asked_for_precision_and_shows_no_throughput(
    token_client, h100, private_storage
):
    """X10: an all-failed run has no figures that depend on the precision: not asked; its
    throughput is absent (not 0.0) and it records "no successful requests"."""
    response = _upload(token_client, h100, _all_failed(), "failed.json")
    assert response.status_code == 201, response.json()
    result = BenchmarkResult.objects.get()
    assert result.precision == ""
    assert result.metrics["output_tokens_per_s"] is None
    assert result.metrics["request_throughput_rps"] is None
    assert result.metrics["extra"]["outcome"] == "no successful requests"
