"""Issue 14: a benchmark result records the workload it measured, so a real upload can count
as measured: its precision is asked when the file does not state it (form, API, and the
result page of a large file), its model name is tied to a model profile by name or alias,
and the serving engine's version is kept."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from knox.models import AuthToken

from benchmarks.models import BenchmarkResult
from benchmarks.selectors import evidence_results_for
from benchmarks.workload import workload_summary
from core.models import AuditEvent
from engine.evidence import EvidenceTarget, match_result, workload_of
from tests.benchmarks.factories_benchmarks import vllm_serve_bytes
from tests.factories import ModelProfileFactory

pytestmark = pytest.mark.django_db

# A real vLLM `benchmark_serving.py` result (llm-d experiment 7): Llama 3.1 8B Instruct,
# 7,999 tokens in / 200 out per request, 3.6 requests/s, no precision in the file.
REAL_VLLM = (
    Path(__file__).resolve().parents[1]
    / "parsers/fixtures/vllm-serve/llmd_exp7_H100_vllm-2replicas_benchmark_2025-05-13_04-55-27.json"
)


@pytest.fixture
def llama8b():
    return ModelProfileFactory(
        slug="llama-3-1-8b",
        name="Llama 3.1 8B",
        family="Llama 3.1",
        params_total_b=8.03,
        params_active_b=8.03,
        aliases=["meta-llama/Llama-3.1-8B-Instruct", "llama3.1:8b"],
    )


@pytest.fixture
def llama70b():
    return ModelProfileFactory(
        slug="llama-3-1-70b",
        name="Llama 3.1 70B",
        family="Llama 3.1",
        params_total_b=70.6,
        params_active_b=70.6,
        aliases=["meta-llama/Llama-3.1-70B-Instruct", "llama3.1:70b"],
    )


@pytest.fixture
def token_client(api_client, engineer):
    _, key = AuthToken.objects.create(user=engineer)
    api_client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    return api_client


def _named(data: bytes, model: str, **extra: object) -> bytes:
    body = json.loads(data)
    body["model_id"] = body["tokenizer_id"] = model
    return json.dumps({**body, **extra}).encode()


def _verdict(result: BenchmarkResult, profile, *, precision: str = "bf16", like=None):
    """The matching rules' verdict for a brief of ``profile`` at ``precision`` whose shape is
    ``like`` (default: the result's own lengths and concurrency: the brief's shape)."""
    frozen = next(
        r
        for r in evidence_results_for([], [result.accelerator_id], None)
        if r["result_id"] == result.pk
    )
    like = like or result
    target = EvidenceTarget(
        accelerator=result.accelerator.slug,
        gpus=result.gpu_count,
        model_name=profile.name,
        model_profile_id=profile.pk,
        model_params_b=profile.params_total_b,
        precision=precision,
        input_tokens_mean=like.input_tokens_mean,
        output_tokens_mean=like.output_tokens_mean,
        concurrency=like.concurrency,
    )
    return match_result(workload_of(frozen), target)


def test_form_asks_for_the_precision_and_the_real_upload_then_counts_as_measured(
    login, engineer, quote_a, llama8b
):
    client = login(engineer)
    form = {"quote": quote_a.pk, "gpu_count": 2, "phase": 2}
    data = REAL_VLLM.read_bytes()
    asked = client.post("/benchmarks/upload/", {**form, "file": SimpleUploadedFile("r.json", data)})
    assert asked.status_code == 400
    page = asked.content.decode()
    assert "does not say at which precision the model ran" in page
    assert 'name="precision"' in page
    assert not BenchmarkResult.objects.exists()

    done = client.post(
        "/benchmarks/upload/",
        {**form, "precision": "bf16", "file": SimpleUploadedFile("r.json", data)},
    )
    assert done.status_code == 302, done.content.decode()[:1500]
    result = BenchmarkResult.objects.get()
    # the file's name is one of the profile's aliases: tied to it, the file's name kept
    assert (result.precision, result.model_profile) == ("bf16", llama8b)
    assert result.model_name == "meta-llama/Llama-3.1-8B-Instruct"
    assert _verdict(result, llama8b).kind == "measured"
    assert "BF16" in client.get(result.get_absolute_url()).content.decode()

    result.precision = ""  # as every real upload ended before: never measured
    result.save(update_fields=["precision"])
    verdict = _verdict(result, llama8b)
    assert verdict.kind == "proxy"
    assert "precision not recorded" in verdict.reason


def test_api_answers_400_naming_the_precision_field(token_client, h100, llama8b):
    body = {"accelerator": h100.slug, "gpu_count": 2}
    data = REAL_VLLM.read_bytes()
    refused = token_client.post(
        "/api/v1/benchmark-results/",
        {**body, "file": SimpleUploadedFile("r.json", data)},
        format="multipart",
    )
    assert refused.status_code == 400
    assert "precision" in refused.json()["fields"]
    assert not BenchmarkResult.objects.exists()

    unknown = token_client.post(
        "/api/v1/benchmark-results/",
        {**body, "precision": "fp6", "file": SimpleUploadedFile("r.json", data)},
        format="multipart",
    )
    assert unknown.status_code == 400
    assert "precision" in unknown.json()["fields"]

    created = token_client.post(
        "/api/v1/benchmark-results/",
        {**body, "precision": "fp8", "file": SimpleUploadedFile("r.json", data)},
        format="multipart",
    )
    assert created.status_code == 201, created.json()
    assert (created.json()["precision"], created.json()["model_profile"]) == ("fp8", llama8b.slug)
    assert created.json()["asks"] == []


def test_a_precision_given_against_the_files_own_is_refused(token_client, h100, llama70b):
    data = _named(vllm_serve_bytes(20), "RedHatAI/Meta-Llama-3.1-70B-Instruct-FP8")
    body = {"accelerator": h100.slug, "gpu_count": 4}
    refused = token_client.post(
        "/api/v1/benchmark-results/",
        {**body, "precision": "bf16", "file": SimpleUploadedFile("r.json", data)},
        format="multipart",
    )
    assert refused.status_code == 400
    assert refused.json()["fields"]["precision"] == [
        "The file states it measured FP8, not BF16: leave the precision empty (the file's is "
        "kept) or upload the file of the BF16 run."
    ]
    assert not BenchmarkResult.objects.exists()

    kept = token_client.post(
        "/api/v1/benchmark-results/",
        {**body, "file": SimpleUploadedFile("r.json", data)},
        format="multipart",
    )
    assert kept.status_code == 201, kept.json()
    result = BenchmarkResult.objects.get()
    # the quantisation suffix both binds the model and states the precision
    assert (result.model_profile, result.precision) == (llama70b, "fp8")
    assert _verdict(result, llama70b, precision="fp8").kind == "measured"
    assert _verdict(result, llama70b, precision="bf16").kind == "proxy"


def test_a_files_dtype_or_quantization_metadata_states_the_precision(token_client, h100):
    data = _named(vllm_serve_bytes(20), "acme/house-13b", quantization="AWQ", dtype="float16")
    response = token_client.post(
        "/api/v1/benchmark-results/",
        {"accelerator": h100.slug, "gpu_count": 1, "file": SimpleUploadedFile("r.json", data)},
        format="multipart",
    )
    assert response.status_code == 201, response.json()
    assert BenchmarkResult.objects.get().precision == "int4"


@pytest.mark.parametrize("name", ["llama3.1:70b", "meta-llama/Llama-3.1-70B-Instruct"])
def test_aliases_bind_a_files_model_to_its_profile_and_count_as_measured(
    token_client, h100, llama70b, llama8b, name
):
    data = _named(vllm_serve_bytes(30), name)
    response = token_client.post(
        "/api/v1/benchmark-results/",
        {
            "accelerator": h100.slug,
            "gpu_count": 1,
            "precision": "bf16",
            "file": SimpleUploadedFile("r.json", data),
        },
        format="multipart",
    )
    assert response.status_code == 201, response.json()
    result = BenchmarkResult.objects.get()
    assert (result.model_profile, result.model_name) == (llama70b, name)
    assert _verdict(result, llama70b).kind == "measured"
    assert _verdict(result, llama8b).kind == "ignored"


def test_an_unknown_model_name_is_asked_on_the_result_page(login, engineer, h100, llama70b):
    client = login(engineer)
    data = _named(vllm_serve_bytes(30), "acme/Mystery-70B-Chat")
    response = client.post(
        "/benchmarks/upload/",
        {
            "accelerator": h100.slug,
            "gpu_count": 1,
            "phase": 2,
            "precision": "bf16",
            "file": SimpleUploadedFile("r.json", data),
        },
    )
    assert response.status_code == 302
    result = BenchmarkResult.objects.get()
    assert result.model_profile is None  # never guessed
    page = client.get(result.get_absolute_url()).content.decode()
    assert "matches no model profile by name or alias" in page
    assert f"/benchmarks/results/{result.pk}/model/" in page

    small = ModelProfileFactory(slug="tiny-1b", name="Tiny 1B", params_total_b=1.0)
    client.post(f"/benchmarks/results/{result.pk}/model/", {"model_profile": small.slug})
    result.refresh_from_db()
    assert result.model_profile is None  # a 1B profile for a file naming 70B: refused
    client.post(f"/benchmarks/results/{result.pk}/model/", {"model_profile": llama70b.slug})
    result.refresh_from_db()
    assert (result.model_profile, result.model_name) == (llama70b, "acme/Mystery-70B-Chat")
    assert _verdict(result, llama70b).kind == "measured"


def test_a_large_file_parsed_later_is_asked_for_its_precision_once_audited(
    login, engineer, quote_a, llama8b, settings
):
    from benchmarks.services import benchmark_result_parse

    settings.BENCHMARK_INLINE_PARSE_MAX_BYTES = 10  # parsed on a worker: unknown at upload
    client = login(engineer)
    response = client.post(
        "/benchmarks/upload/",
        {
            "quote": quote_a.pk,
            "gpu_count": 2,
            "phase": 2,
            "file": SimpleUploadedFile("big.json", REAL_VLLM.read_bytes()),
        },
    )
    assert response.status_code == 302
    result = BenchmarkResult.objects.get()
    benchmark_result_parse(result_id=result.pk)
    page = client.get(result.get_absolute_url()).content.decode()
    assert "at which precision it ran" in page
    assert 'name="precision"' in page
    assert client.get(f"/api/v1/benchmark-results/{result.pk}/").json()["asks"] == ["precision"]

    client.post(f"/benchmarks/results/{result.pk}/model/", {"precision": "bf16"})
    result.refresh_from_db()
    assert result.precision == "bf16"
    event = AuditEvent.objects.filter(action="benchmark_result.model_set").get()
    assert event.summary == {"precision": "bf16"}
    client.post(f"/benchmarks/results/{result.pk}/model/", {"precision": "fp8"})
    result.refresh_from_db()
    assert result.precision == "bf16"  # set once; never replaced
    assert AuditEvent.objects.filter(action="benchmark_result.model_set").count() == 1
    assert _verdict(result, llama8b).kind == "measured"


def test_a_large_files_own_precision_wins_over_the_one_given_and_says_so(
    token_client, h100, settings
):
    from benchmarks.services import benchmark_result_parse

    settings.BENCHMARK_INLINE_PARSE_MAX_BYTES = 10
    data = _named(vllm_serve_bytes(20), "RedHatAI/Meta-Llama-3.1-70B-Instruct-FP8")
    response = token_client.post(
        "/api/v1/benchmark-results/",
        {
            "accelerator": h100.slug,
            "gpu_count": 1,
            "precision": "bf16",
            "file": SimpleUploadedFile("big.json", data),
        },
        format="multipart",
    )
    assert response.status_code == 201
    result = benchmark_result_parse(result_id=response.json()["id"])
    assert result is not None
    result.refresh_from_db()
    assert result.precision == "fp8"
    assert any("precision given at upload (bf16) was not used" in n for n in result.parse_notes)


def test_engine_version_is_kept_from_the_form_or_the_files_metadata(login, engineer, h100):
    client = login(engineer)
    client.post(
        "/benchmarks/upload/",
        {
            "accelerator": h100.slug,
            "gpu_count": 1,
            "phase": 2,
            "precision": "bf16",
            "serving_engine": "vLLM",
            "engine_version": "0.8.5",
            "file": SimpleUploadedFile("a.json", vllm_serve_bytes(10)),
        },
    )
    typed = BenchmarkResult.objects.get()
    assert typed.engine_version == "0.8.5"
    assert "vLLM 0.8.5" in workload_summary(typed)
    assert "vLLM 0.8.5" in client.get("/benchmarks/").content.decode()

    stated = _named(vllm_serve_bytes(10, seed=3), "x/y-7b", engine_version="0.9.2")
    client.post(
        "/benchmarks/upload/",
        {
            "accelerator": h100.slug,
            "gpu_count": 1,
            "phase": 2,
            "precision": "bf16",
            "serving_engine": "vLLM",
            "file": SimpleUploadedFile("b.json", stated),
        },
    )
    from_file = BenchmarkResult.objects.exclude(pk=typed.pk).get()
    assert from_file.engine_version == "0.9.2"
    assert "vLLM 0.9.2" in client.get(from_file.get_absolute_url()).content.decode()
