"""Uploads of GenAI-Perf and AIPerf exports ask only what their input config does not say
(finding X11): the model from the config's model names, the precision from a key it states or
the names' quantisation suffix. Files are written in the real layouts; figures are made up.
"""

from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from knox.models import AuthToken

from benchmarks.models import BenchmarkResult
from tests.factories import ModelProfileFactory
from tests.parsers.test_parser_input_config import aiperf_early, aiperf_schema_13, genai_perf

pytestmark = pytest.mark.django_db

GENAI_PERF_CSV = (
    b"Metric,avg,min,max,p99,p95,p90,p75,p50,p25\r\n"
    b'Time To First Token (ms),"1,146.31",249.48,"2,210.00","2,100.00","1,900.00",'
    b'"1,700.00","1,300.00","1,100.00",900.00\r\n'
    b'Request Latency (ms),"4,000.00","1,000.00","6,000.00","5,900.00","5,500.00",'
    b'"5,000.00","4,500.00","4,000.00","3,500.00"\r\n'
    b"\r\n"
    b"Metric,Value\r\n"
    b"Output Token Throughput (tokens/sec),408.83\r\n"
    b"Request Throughput (per sec),1.25\r\n"
    b"Request Count (count),50\r\n"
)


@pytest.fixture
def token_client(api_client, engineer):
    _, key = AuthToken.objects.create(user=engineer)
    api_client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    return api_client


@pytest.fixture
def llama8b(db):
    return ModelProfileFactory(
        slug="llama-3-1-8b",
        name="Llama 3.1 8B",
        params_total_b=8.0,
        params_active_b=8.0,
        aliases=["meta-llama/Llama-3.1-8B-Instruct"],
        published_precision="bf16",
    )


@pytest.fixture
def qwen7b(db):
    return ModelProfileFactory(
        slug="qwen2-5-7b",
        name="Qwen2.5 7B",
        params_total_b=7.6,
        params_active_b=7.6,
        aliases=["Qwen/Qwen2.5-7B-Instruct"],
        published_precision="bf16",
    )


def _upload(client, h100, data: bytes, name: str, **fields):
    body = {"accelerator": h100.slug, "gpu_count": 1, **fields}
    body["file"] = SimpleUploadedFile(name, data)
    return client.post("/api/v1/benchmark-results/", body, format="multipart")


def test_x11_genai_perf_model_names_suffix_is_the_precision(token_client, h100, llama8b):
    """X11: `model_names: [...-FP8]` states the model and FP8: nothing is asked, the name
    binds to the Llama 3.1 8B profile (its quantisation suffix dropped)."""
    config = {"model_names": ["RedHatAI/Meta-Llama-3.1-8B-Instruct-FP8"]}
    response = _upload(token_client, h100, genai_perf(config), "run_genai_perf.json")
    assert response.status_code == 201, response.json()
    result = BenchmarkResult.objects.get()
    assert (result.model_name, result.precision) == (
        "RedHatAI/Meta-Llama-3.1-8B-Instruct-FP8",
        "fp8",
    )
    assert result.model_profile == llama8b


def test_x11_genai_perf_extra_input_quantization_is_the_precision(token_client, h100, llama8b):
    """X11: `input.extra.quantization: awq` states INT4 (AWQ stores 4-bit weights)."""
    config = {
        "model_names": ["meta-llama/Llama-3.1-8B-Instruct"],
        "input": {"extra": {"quantization": "awq"}},
    }
    response = _upload(token_client, h100, genai_perf(config), "run_genai_perf.json")
    assert response.status_code == 201, response.json()
    assert BenchmarkResult.objects.get().precision == "int4"


def test_x11_aiperf_config_names_the_model_so_only_precision_is_asked(token_client, h100, qwen7b):
    """X11: the config names the model but no precision, and the run has throughput figures:
    the refusal asks for the precision alone; nothing is stored."""
    config = {"endpoint": {"model_names": ["Qwen/Qwen2.5-7B-Instruct"]}}
    response = _upload(token_client, h100, aiperf_early(config), "profile_export_aiperf.json")
    assert response.status_code == 400
    assert set(response.json()["fields"]) == {"precision"}
    assert not BenchmarkResult.objects.exists()
    again = _upload(
        token_client, h100, aiperf_early(config), "profile_export_aiperf.json", precision="bf16"
    )
    assert again.status_code == 201, again.json()
    assert BenchmarkResult.objects.get().model_profile == qwen7b


def test_x11_aiperf_models_at_two_precisions_state_none(token_client, h100, qwen7b):
    """X11: an AWQ and an unquantised model in one run: their precisions disagree, so the
    file states none and the precision is asked."""
    config = {"endpoint": {"model_names": ["Qwen/Qwen2.5-7B-Instruct-AWQ", "Qwen/Qwen2.5-7B"]}}
    response = _upload(token_client, h100, aiperf_early(config), "profile_export_aiperf.json")
    assert response.status_code == 400
    assert "precision" in response.json()["fields"]


def test_x11_aiperf_config_dtype_auto_takes_the_profiles_precision(token_client, h100, qwen7b):
    """X11: `dtype: auto` in the config is the profile's published precision, stated in the
    notes, as for SGLang's server arguments."""
    config = {
        "models": {"items": [{"name": "Qwen/Qwen2.5-7B-Instruct"}]},
        "input": {"extra": [["dtype", "auto"]]},
    }
    response = _upload(token_client, h100, aiperf_schema_13(config), "profile_export_aiperf.json")
    assert response.status_code == 201, response.json()
    result = BenchmarkResult.objects.get()
    assert result.precision == "bf16"
    assert any("dtype auto" in note and "Qwen2.5 7B" in note for note in result.parse_notes)


def test_x11_config_precision_contradicted_at_upload_is_refused(token_client, h100, llama8b):
    """X11: a precision given that contradicts the config's is refused: the file is the
    evidence."""
    config = {"model_names": ["RedHatAI/Meta-Llama-3.1-8B-Instruct-FP8"]}
    response = _upload(
        token_client, h100, genai_perf(config), "run_genai_perf.json", precision="bf16"
    )
    assert response.status_code == 400
    assert "states it measured FP8" in response.json()["detail"]
    assert not BenchmarkResult.objects.exists()


def test_x11_genai_perf_csv_has_no_config_so_both_are_asked(token_client, h100, llama8b):
    """X11: the CSV export carries no input config: with throughput figures, the model and
    the precision are both asked."""
    response = _upload(token_client, h100, GENAI_PERF_CSV, "run_genai_perf.csv")
    assert response.status_code == 400, response.json()
    assert set(response.json()["fields"]) == {"model_profile", "precision"}
