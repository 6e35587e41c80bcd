"""Several files of one sweep uploaded at once (finding V11): the service, the HTML page with
and without JavaScript, the batch API, the pre-upload check, the quote picker and the serving
engine's label. vLLM `--save-result` files are written here at concurrency 1, 8 and 32."""

from __future__ import annotations

import json
from decimal import Decimal

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from benchmarks.errors import UploadRejected
from benchmarks.models import BenchmarkResult
from benchmarks.selectors import evidence_results_for
from benchmarks.services import (
    MAX_FILES_PER_UPLOAD,
    UploadMeta,
    benchmark_results_ingest_many,
)
from core.models import AuditEvent
from tests.benchmarks.conftest import stored_files
from tests.benchmarks.factories_benchmarks import vllm_serve_bytes
from tests.factories import ProviderFactory, QuoteFactory
from tests.parsers.test_parser_synthetic import sglang_line

pytestmark = pytest.mark.django_db
SWEEP = "h100 chat sweep"
JSON_ACCEPT = {"HTTP_ACCEPT": "application/json", "HTTP_X_REQUESTED_WITH": "XMLHttpRequest"}


def vllm_at(concurrency: int, **fields: object) -> SimpleUploadedFile:
    doc = json.loads(vllm_serve_bytes(30))  # one shape; the runs differ by their concurrency
    doc["max_concurrency"] = concurrency
    doc.update(fields)
    return SimpleUploadedFile(f"c{concurrency}.json", json.dumps(doc).encode())


def broken() -> SimpleUploadedFile:
    return SimpleUploadedFile("notes.txt", b"this is not a benchmark file\n")


def test_v11_three_files_of_one_sweep_stored_in_one_call(engineer, quote_a, private_storage):
    """V11: one call, one sweep name, three files: three results on the same candidate with
    the same sweep, and the comparison reads them as one result with three points."""
    uploads = [vllm_at(c) for c in (1, 8, 32)]
    meta = UploadMeta(quote=quote_a, gpu_count=4, precision="bf16", sweep=SWEEP)
    outcomes = benchmark_results_ingest_many(acting_user=engineer, uploads=uploads, meta=meta)
    assert [o.status for o in outcomes] == ["created"] * 3
    results = BenchmarkResult.objects.order_by("concurrency")
    assert [r.concurrency for r in results] == [1, 8, 32]
    assert {(r.sweep, r.quote_id, r.gpu_count) for r in results} == {(SWEEP, quote_a.pk, 4)}
    (merged,) = evidence_results_for([quote_a.pk], [], None)
    assert [p["concurrency"] for p in merged["operating_points"]] == [1, 8, 32]


def test_v11_a_refused_file_does_not_lose_the_others(engineer, quote_a, private_storage):
    """V11: the middle file is unreadable: the two others are stored, it is refused with the
    parser's reason and audited, and nothing of it is stored."""
    uploads = [vllm_at(1), broken(), vllm_at(32)]
    meta = UploadMeta(quote=quote_a, gpu_count=4, precision="bf16", sweep=SWEEP)
    outcomes = benchmark_results_ingest_many(acting_user=engineer, uploads=uploads, meta=meta)
    assert [o.status for o in outcomes] == ["created", "refused", "created"]
    assert outcomes[1].filename == "notes.txt"
    assert outcomes[1].refusal is not None
    assert "unrecognised text file 'notes.txt'" in outcomes[1].refusal.message
    assert BenchmarkResult.objects.count() == 2
    assert len(stored_files(private_storage)) == 2
    rejected = AuditEvent.objects.get(action="benchmark_result.rejected")
    assert rejected.summary["file"] == "notes.txt"


def test_v11_too_many_files_are_refused_before_any_is_read(engineer, quote_a, private_storage):
    """V11: more files than one upload takes: refused whole, naming the limit."""
    uploads = [broken() for _ in range(MAX_FILES_PER_UPLOAD + 1)]
    with pytest.raises(UploadRejected, match=f"at most {MAX_FILES_PER_UPLOAD}"):
        benchmark_results_ingest_many(
            acting_user=engineer, uploads=uploads, meta=UploadMeta(quote=quote_a)
        )
    assert not AuditEvent.objects.filter(action="benchmark_result.rejected").exists()


def test_v11_one_concurrency_for_several_files_is_refused(engineer, quote_a, private_storage):
    """V11: a concurrency given with several files would place every file at one point:
    refused naming the field, before any file is read."""
    meta = UploadMeta(quote=quote_a, gpu_count=4, precision="bf16", concurrency=8)
    with pytest.raises(UploadRejected) as refused:
        benchmark_results_ingest_many(
            acting_user=engineer, uploads=[vllm_at(1), vllm_at(8)], meta=meta
        )
    assert "concurrency" in refused.value.fields
    assert not BenchmarkResult.objects.exists()


def test_v11_form_post_without_javascript_lists_each_outcome(
    client, login, engineer, quote_a, private_storage
):
    """V11: the plain form takes three files at once (one refused): 200, each file's line
    (stored with its link, refused with its reason); the sweep name was typed once."""
    login(engineer)
    response = client.post(
        "/benchmarks/upload/",
        {
            "file": [vllm_at(1), broken(), vllm_at(8)],
            "quote": quote_a.pk,
            "gpu_count": 4,
            "precision": "bf16",
            "sweep": SWEEP,
        },
    )
    assert response.status_code == 200
    page = response.content.decode()
    assert "3 files sent" in page
    assert page.count("open the result") == 2
    assert "refused" in page
    assert "notes.txt" in page
    assert set(BenchmarkResult.objects.values_list("sweep", flat=True)) == {SWEEP}


def test_v11_each_file_by_javascript_is_answered_in_json(
    client, login, engineer, quote_a, private_storage
):
    """V11: the page sends each file on its own and reads a JSON answer: 201 with the
    result's link, then 200 for the same bytes, and 400 naming what a refused file needs."""
    login(engineer)
    fields = {"quote": quote_a.pk, "gpu_count": 4, "sweep": SWEEP}
    first = client.post(
        "/benchmarks/upload/", {**fields, "precision": "bf16", "file": vllm_at(8)}, **JSON_ACCEPT
    )
    assert first.status_code == 201
    body = first.json()
    assert body["status"] == "created"
    assert body["url"] == BenchmarkResult.objects.get().get_absolute_url()
    again = client.post(
        "/benchmarks/upload/", {**fields, "precision": "bf16", "file": vllm_at(8)}, **JSON_ACCEPT
    )
    assert (again.status_code, again.json()["status"]) == (200, "existing")
    asked = client.post("/benchmarks/upload/", {**fields, "file": vllm_at(32)}, **JSON_ACCEPT)
    assert asked.status_code == 400
    assert asked.json()["status"] == "refused"
    assert "precision" in asked.json()["fields"]
    no_gpus = client.post(
        "/benchmarks/upload/", {"quote": quote_a.pk, "file": vllm_at(64)}, **JSON_ACCEPT
    )
    assert no_gpus.status_code == 400
    assert "gpu_count" in no_gpus.json()["fields"]
    assert BenchmarkResult.objects.count() == 1


def test_v11_batch_api_takes_several_files_with_one_set_of_fields(
    api_client, engineer, h100, private_storage
):
    """V11: `POST /api/v1/benchmark-results/batch/` with three `file` parts: 201, each
    file's outcome with its result, counts; the same files again: 200, all existing."""
    api_client.force_authenticate(engineer)
    fields = {"accelerator": h100.slug, "gpu_count": 4, "precision": "bf16", "sweep": SWEEP}
    url = "/api/v1/benchmark-results/batch/"
    response = api_client.post(
        url, {**fields, "file": [vllm_at(c) for c in (1, 8, 32)]}, format="multipart"
    )
    assert response.status_code == 201, response.json()
    body = response.json()
    assert (body["sweep"], body["created"], body["existing"], body["refused"]) == (
        SWEEP,
        3,
        0,
        0,
    )
    assert [f["result"]["workload"].split(" · ")[-1] for f in body["files"]] == [
        "concurrency 1",
        "concurrency 8",
        "concurrency 32",
    ]
    again = api_client.post(
        url, {**fields, "file": [vllm_at(c) for c in (1, 8, 32)]}, format="multipart"
    )
    assert again.status_code == 200
    assert again.json()["existing"] == 3


def test_v11_batch_api_all_refused_is_400_with_each_reason(api_client, engineer, h100):
    """V11: every file refused: 400, the body still says why for each."""
    api_client.force_authenticate(engineer)
    response = api_client.post(
        "/api/v1/benchmark-results/batch/",
        {"accelerator": h100.slug, "gpu_count": 1, "file": [broken(), vllm_at(4)]},
        format="multipart",
    )
    assert response.status_code == 400
    files = response.json()["files"]
    assert [f["status"] for f in files] == ["refused", "refused"]
    assert "precision" in files[1]["fields"]
    assert not BenchmarkResult.objects.exists()


def test_v11_batch_api_refuses_readers_and_bad_fields(api_client, finance, engineer, h100):
    """V11: the batch endpoint has the single upload's rules: a reader gets 403, a missing
    GPU count is 400 naming it."""
    api_client.force_authenticate(finance)
    url = "/api/v1/benchmark-results/batch/"
    denied = api_client.post(url, {"accelerator": h100.slug, "gpu_count": 1, "file": [vllm_at(1)]})
    assert denied.status_code == 403
    api_client.force_authenticate(engineer)
    missing = api_client.post(url, {"accelerator": h100.slug, "file": [vllm_at(1)]})
    assert missing.status_code == 400
    assert "gpu_count" in missing.json()["fields"]


def test_v11_single_upload_api_answers_as_before(api_client, engineer, h100, private_storage):
    """V11: the single-file endpoint keeps its contract: 201 with the result itself."""
    api_client.force_authenticate(engineer)
    response = api_client.post(
        "/api/v1/benchmark-results/",
        {"accelerator": h100.slug, "gpu_count": 2, "precision": "bf16", "file": vllm_at(8)},
        format="multipart",
    )
    assert response.status_code == 201
    body = response.json()
    assert (body["gpu_count"], body["accelerator"], body["on_api"]) == (2, h100.slug, False)
    assert body["figures"]["tokens_per_s_per_gpu"] == pytest.approx(
        body["figures"]["output_tokens_per_s"] / 2
    )


def test_v11_check_says_what_a_file_states_before_its_upload(
    client, login, engineer, private_storage
):
    """V11: the page asks for the precision up front: the check reads a file, stores nothing
    and says it states no precision (asked), or states FP8 in its metadata (not asked)."""
    login(engineer)
    url = "/benchmarks/upload/check/"
    plain = client.post(url, {"file": vllm_at(8)}).json()
    assert plain["status"] == "checked"
    assert (plain["format_id"], plain["model"]) == (
        "vllm-serve",
        "meta-llama/Llama-3.1-70B-Instruct",
    )
    assert (plain["precision"], plain["asks"], plain["concurrency"]) == ("", ["precision"], 8)
    stated = client.post(url, {"file": vllm_at(8, precision="fp8")}).json()
    assert (stated["precision"], stated["asks"]) == ("fp8", [])
    refused = client.post(url, {"file": broken()})
    assert refused.status_code == 200
    assert refused.json()["status"] == "refused"
    assert not BenchmarkResult.objects.exists()
    assert stored_files(private_storage) == []


def test_v11_check_is_for_uploaders_only(client, login, finance, vendor_a):
    """V11: readers and vendors cannot use the check (404, as every upload page)."""
    for user in (finance, vendor_a):
        login(user)
        assert client.post("/benchmarks/upload/check/", {"file": vllm_at(1)}).status_code == 404


def test_v11_quote_picker_shows_title_price_unit_region_and_version(client, login, engineer, h100):
    """V11: options grouped by provider, each with its title, price to 2 decimals and its
    unit, region and version: two versions of one offer are told apart."""
    northwind = ProviderFactory(name="Northwind GPU Cloud", slug="northwind")
    kwargs = {"provider": northwind, "accelerator": h100, "region": "eu-west-1"}
    QuoteFactory(title="NW H100 8x eu-west on-demand", price_per_gpu_hour=Decimal("2.4"), **kwargs)
    QuoteFactory(
        title="NW H100 node",
        price_unit="node_hour",
        price_as_quoted=Decimal("19.92"),
        gpus_per_priced_unit=8,
        price_per_gpu_hour=Decimal("2.49"),
        version=3,
        **kwargs,
    )
    login(engineer)
    page = client.get("/benchmarks/upload/").content.decode()
    assert '<optgroup label="Northwind GPU Cloud">' in page
    assert (
        "Northwind GPU Cloud · NW H100 8x eu-west on-demand · H100 SXM 80GB · "
        "2.40 USD per GPU-hour · eu-west-1 · v1"
    ) in page
    assert "NW H100 node · H100 SXM 80GB · 19.92 USD per node-hour · eu-west-1 · v3" in page
    assert "data-filter-select" in page


def test_v11_result_page_shows_the_engine_with_its_version(
    client, login, engineer, quote_a, private_storage
):
    """V11: "Serving engine" reads "vLLM 0.9.1", never the version alone; the form asks for
    the engine when only a version is typed."""
    login(engineer)
    fields = {"quote": quote_a.pk, "gpu_count": 4, "precision": "bf16"}
    refused = client.post(
        "/benchmarks/upload/", {**fields, "engine_version": "0.9.1", "file": vllm_at(8)}
    )
    assert refused.status_code == 400
    assert "Name the engine version 0.9.1 is of" in refused.content.decode()
    client.post(
        "/benchmarks/upload/",
        {**fields, "serving_engine": "vLLM", "engine_version": "0.9.1", "file": vllm_at(8)},
    )
    page = client.get(BenchmarkResult.objects.get().get_absolute_url()).content.decode()
    assert "<dt>Serving engine</dt><dd>vLLM 0.9.1</dd>" in page


def test_v11_sglang_file_names_its_engine_and_version(api_client, engineer, h100, private_storage):
    """V11: an SGLang file with `server_info` was served by SGLang: the engine and its version
    come from the file when the upload leaves them empty."""
    api_client.force_authenticate(engineer)
    line = sglang_line(4.0)
    line["server_info"] = {
        "model_path": "meta-llama/Llama-3.1-70B-Instruct",
        "dtype": "bfloat16",
        "version": "0.4.6",
    }
    response = api_client.post(
        "/api/v1/benchmark-results/",
        {
            "accelerator": h100.slug,
            "gpu_count": 1,
            "file": SimpleUploadedFile("agg.jsonl", (json.dumps(line) + "\n").encode()),
        },
        format="multipart",
    )
    assert response.status_code == 201, response.json()
    result = BenchmarkResult.objects.get()
    assert (result.serving_engine, result.engine_version) == ("SGLang", "0.4.6")
