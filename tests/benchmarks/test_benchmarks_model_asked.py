"""U18 / D1 at the door: a file that does not say its model is asked for it (form and API),
never guessed; a file of another model than its brief's is flagged at once, on the upload."""

from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from knox.models import AuthToken

from benchmarks.models import BenchmarkResult
from tests.benchmarks.factories_benchmarks import BenchmarkResultFactory, vllm_serve_bytes
from tests.factories import ModelProfileFactory

pytestmark = pytest.mark.django_db


def _nameless(data: bytes) -> bytes:
    """The same vLLM file without its model and tokenizer ids."""
    import json

    body = json.loads(data)
    body.pop("model_id", None)
    body.pop("tokenizer_id", None)
    return json.dumps(body).encode()


@pytest.fixture
def nameless_file() -> bytes:
    return _nameless(vllm_serve_bytes(40))


@pytest.fixture
def token_client(api_client, engineer):
    _, key = AuthToken.objects.create(user=engineer)
    api_client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    return api_client


def test_u18_form_asks_for_the_model_when_the_file_does_not_say_it(
    login, engineer, quote_a, nameless_file, private_storage
):
    client = login(engineer)
    form = {"quote": quote_a.pk, "gpu_count": 1, "phase": 2, "precision": "bf16"}
    response = client.post(
        "/benchmarks/upload/", {**form, "file": SimpleUploadedFile("run.json", nameless_file)}
    )
    assert response.status_code == 400
    page = response.content.decode()
    assert "does not say which model it measured" in page
    assert 'name="model_profile"' in page
    assert not BenchmarkResult.objects.exists()

    profile = ModelProfileFactory(slug="llama-3-1-70b", name="Llama 3.1 70B")
    response = client.post(
        "/benchmarks/upload/",
        {
            **form,
            "model_profile": profile.slug,
            "file": SimpleUploadedFile("run.json", nameless_file),
        },
    )
    assert response.status_code == 302
    result = BenchmarkResult.objects.get()
    assert (result.model_profile, result.model_name) == (profile, "Llama 3.1 70B")


def test_u18_api_answers_400_naming_the_model_profile_field(
    token_client, h100, nameless_file, private_storage
):
    body = {"accelerator": h100.slug, "gpu_count": 1, "precision": "bf16"}
    response = token_client.post(
        "/api/v1/benchmark-results/",
        {**body, "file": SimpleUploadedFile("run.json", nameless_file)},
        format="multipart",
    )
    assert response.status_code == 400
    assert "model_profile" in response.json()["fields"]
    assert not BenchmarkResult.objects.exists()

    ModelProfileFactory(slug="llama-3-1-70b")
    response = token_client.post(
        "/api/v1/benchmark-results/",
        {
            **body,
            "model_profile": "llama-3-1-70b",
            "file": SimpleUploadedFile("run.json", nameless_file),
        },
        format="multipart",
    )
    assert response.status_code == 201, response.json()
    assert response.json()["model_profile"] == "llama-3-1-70b"


def test_u18_a_file_naming_its_model_is_not_asked_and_keeps_its_own_name(
    token_client, h100, private_storage
):
    profile = ModelProfileFactory(slug="qwen2-5-7b", name="Qwen2.5 7B")
    response = token_client.post(
        "/api/v1/benchmark-results/",
        {
            "accelerator": h100.slug,
            "gpu_count": 1,
            "precision": "bf16",
            "model_profile": profile.slug,
            "file": SimpleUploadedFile("run.json", vllm_serve_bytes(40)),
        },
        format="multipart",
    )
    assert response.status_code == 201
    result = BenchmarkResult.objects.get()
    assert result.model_name == "meta-llama/Llama-3.1-70B-Instruct"
    assert result.model_profile is None  # the file is the evidence; the pick disagreed
    assert any("was not used" in note for note in result.parse_notes)


def test_u18_upload_of_another_model_than_the_brief_warns_at_once(
    login, engineer, quote_a, lead, private_storage
):
    from tests.factories import WorkloadBriefFactory

    brief = WorkloadBriefFactory(
        created_by=lead, model=ModelProfileFactory(slug="llama-3-1-8b", name="Llama 3.1 8B")
    )
    client = login(engineer)
    response = client.post(
        "/benchmarks/upload/",
        {
            "quote": quote_a.pk,
            "brief": brief.pk,
            "gpu_count": 1,
            "phase": 2,
            "precision": "bf16",
            "file": SimpleUploadedFile("run.json", vllm_serve_bytes(40)),
        },
        follow=True,
    )
    page = response.content.decode()
    assert "This file measured meta-llama/Llama-3.1-70B-Instruct" in page
    assert "Llama 3.1 8B" in page
    result = BenchmarkResult.objects.get()
    api = client.get(f"/api/v1/benchmark-results/{result.pk}/").json()
    assert api["model_warning"].startswith("This file measured")


def test_u19_list_and_result_page_show_the_workload(login, engineer, h100):
    result = BenchmarkResultFactory(
        accelerator=h100,
        gpu_count=4,
        model_name="Llama 3.1 70B",
        precision="fp8",
        tensor_parallel=4,
        input_tokens_mean=1500,
        output_tokens_mean=300,
        concurrency=32,
        serving_engine="vLLM",
        engine_version="0.8.5",
    )
    shown = "Llama 3.1 70B · fp8 · 4 GPUs (TP=4) · 1,500 in / 300 out tokens · concurrency 32"
    client = login(engineer)
    assert shown in client.get("/benchmarks/").content.decode()
    assert shown in client.get(result.get_absolute_url()).content.decode()


def test_u18_a_large_file_parsed_later_is_asked_for_its_model_on_its_page(
    login, engineer, quote_a, nameless_file, settings, private_storage
):
    from benchmarks.services import benchmark_result_parse

    settings.BENCHMARK_INLINE_PARSE_MAX_BYTES = 10  # parsed on a worker: unknown at upload
    client = login(engineer)
    response = client.post(
        "/benchmarks/upload/",
        {
            "quote": quote_a.pk,
            "gpu_count": 1,
            "phase": 2,
            "file": SimpleUploadedFile("big.json", nameless_file),
        },
    )
    assert response.status_code == 302
    result = BenchmarkResult.objects.get()
    benchmark_result_parse(result_id=result.pk)
    page = client.get(result.get_absolute_url()).content.decode()
    assert "does not say which model it measured" in page
    assert f"/benchmarks/results/{result.pk}/model/" in page

    profile = ModelProfileFactory(slug="llama-3-1-70b", name="Llama 3.1 70B")
    client.post(f"/benchmarks/results/{result.pk}/model/", {"model_profile": profile.slug})
    result.refresh_from_db()
    assert (result.model_profile, result.model_name) == (profile, "Llama 3.1 70B")
    # a file's own name, once known, is never replaced
    other = ModelProfileFactory(slug="qwen2-5-7b", name="Qwen2.5 7B")
    client.post(f"/benchmarks/results/{result.pk}/model/", {"model_profile": other.slug})
    result.refresh_from_db()
    assert result.model_name == "Llama 3.1 70B"
