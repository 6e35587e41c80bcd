"""Uploads through the API (token) and the browser form: every sample parses and is stored
with the parser's own figures; every malformed file is refused with its reason and leaves
no row and no stored file behind (only the audit event of the refusal)."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from knox.models import AuthToken

from benchmarks import parsers
from benchmarks.models import BenchmarkResult
from benchmarks.services.asked import needs_model, needs_precision
from benchmarks.services.results import stated_gpus
from core.models import AuditEvent
from tests.benchmarks.conftest import stored_files
from tests.benchmarks.factories_benchmarks import vllm_serve_bytes
from tests.factories import ModelProfileFactory

pytestmark = pytest.mark.django_db

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = Path(os.environ.get("BENCHMARK_FIXTURES_DIR", ROOT / "tests" / "parsers" / "fixtures"))
FAMILIES = ("ttft_ms", "itl_ms", "tpot_ms", "e2e_ms")


def _samples() -> list[Path]:
    """Every fixture file the parsers accept (negative fixtures are the parsers' own tests)."""
    if not FIXTURES.is_dir():
        return []
    out = []
    for path in sorted(p for p in FIXTURES.rglob("*") if p.is_file()):
        if path.name.endswith((".source.txt", ".md")) or path.name.startswith("."):
            continue
        try:
            parsers.parse(path.read_bytes(), path.name)
        except parsers.ParseError:
            continue
        out.append(path)
    return out


SAMPLES = _samples()


def _sample_id(path: Path) -> str:
    return str(path.relative_to(FIXTURES))


@pytest.fixture
def token_client(api_client, engineer):
    _, key = AuthToken.objects.create(user=engineer)
    api_client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    return api_client


def _assert_matches_parser(result: BenchmarkResult, data: bytes, name: str) -> None:
    parsed = parsers.parse(data, name)
    expected = parsed.metrics.to_dict()
    assert result.status == BenchmarkResult.Status.PARSED
    assert result.format_id == parsed.format_id
    for family in FAMILIES:
        assert result.metrics[family] == expected[family], family
    for key in ("output_tokens_per_s", "request_throughput_rps", "requests_completed"):
        assert result.metrics[key] == expected[key], key
    assert result.discrepancies == [d.to_dict() for d in parsed.discrepancies]
    # F8 (round 4): a file that states the GPUs its throughput ran on (an MLPerf summary row)
    # keeps its own count over the upload's, and says so
    own = [n for n in result.parse_notes if n.startswith("The file's result ran on")]
    assert result.parse_notes == list(parsed.notes) + own
    if own:
        assert result.gpu_count == stated_gpus(parsed)
    assert result.sha256 == hashlib.sha256(data).hexdigest()
    assert result.size_bytes == len(data)
    assert result.original_name == name
    with result.raw_file.open("rb") as handle:
        assert handle.read() == data
    if parsed.per_request is not None and parsed.per_request.success.any():
        assert "ttft_ms" in result.distributions or "e2e_ms" in result.distributions


def test_fixtures_are_there():
    assert len(SAMPLES) >= 5, f"no parser fixtures found under {FIXTURES}"


def _model_asked(data: bytes, name: str) -> dict[str, str]:
    """What the upload asks for when a file with figures does not say it: its model profile,
    its precision (issue 14)."""
    parsed = parsers.parse(data, name)
    asked = {"model_profile": ModelProfileFactory().slug} if needs_model(parsed) else {}
    return {**asked, **({"precision": "bf16"} if needs_precision(parsed) else {})}


@pytest.mark.parametrize("sample", SAMPLES, ids=_sample_id)
def test_every_sample_uploads_through_the_api(sample, token_client, h100, private_storage):
    data = sample.read_bytes()
    response = token_client.post(
        "/api/v1/benchmark-results/",
        {
            "file": SimpleUploadedFile(sample.name, data),
            "accelerator": h100.slug,
            "gpu_count": 2,
            "serving_engine": "vLLM 0.8.5",
            "parallelism": "TP=2",
            **_model_asked(data, sample.name),
        },
        format="multipart",
    )
    assert response.status_code == 201, response.json()
    body = response.json()
    result = BenchmarkResult.objects.get(pk=body["id"])
    _assert_matches_parser(result, data, sample.name)
    assert body["status"] == "parsed"
    assert body["metrics"]["e2e_ms"] == result.metrics["e2e_ms"]
    assert body["accelerator"] == h100.slug
    stated = stated_gpus(parsers.parse(data, sample.name))
    assert (result.gpu_count, result.parallelism) == (stated or 2, "TP=2")
    assert len(stored_files(private_storage)) == 1


@pytest.mark.parametrize("sample", SAMPLES, ids=_sample_id)
def test_every_sample_uploads_through_the_browser_form(sample, login, engineer, quote_a):
    client = login(engineer)
    data = sample.read_bytes()
    response = client.post(
        "/benchmarks/upload/",
        {
            "file": SimpleUploadedFile(sample.name, data),
            "quote": quote_a.pk,
            "gpu_count": 1,
            "phase": 2,
            **_model_asked(data, sample.name),
        },
    )
    assert response.status_code == 302, response.content.decode()[:2000]
    result = BenchmarkResult.objects.get()
    assert response["Location"] == result.get_absolute_url()
    _assert_matches_parser(result, data, sample.name)
    assert result.quote == quote_a
    assert result.accelerator == quote_a.accelerator
    page = client.get(result.get_absolute_url())
    assert page.status_code == 200
    assert b"Latency percentiles" in page.content


# --- Refusals --------------------------------------------------------------------------------

_SERVE = json.loads(vllm_serve_bytes(4))


def _serve(**changes) -> bytes:
    return json.dumps({**_SERVE, **changes}).encode()


BAD_FILES = {
    "truncated JSON": (vllm_serve_bytes(20)[:700], "not valid JSON"),
    "wrong format": (b'{"hello": "world", "items": [1, 2, 3]}', "tried"),
    "html page": (b"<html><body>not a benchmark</body></html>", "tried"),
    "empty": (b"", "empty"),
    "NaN latency": (_serve(ttfts=[0.1, float("nan"), 0.1, 0.1]), "NaN"),
    "NaN summary": (_serve(mean_ttft_ms=float("nan")), "NaN"),
    "negative latency": (_serve(ttfts=[0.1, -0.2, 0.1, 0.1]), "negative"),
    "huge number": (_serve(p99_ttft_ms=1e300), "absurdly large"),
    "non-UTF-8": (b"ttft_ms,e2e_ms\n\xe9\xe9,1\n", "not UTF-8"),
    "CSV formula cell": (b"ttft_ms,e2e_ms\n12,300\n=cmd|' /C calc'!A0,100\n", "formula"),
}


def _counts(root):
    return BenchmarkResult.objects.count(), stored_files(root)


def _rejections():
    return AuditEvent.objects.filter(action="benchmark_result.rejected").count()


@pytest.mark.parametrize(("data", "reason"), BAD_FILES.values(), ids=BAD_FILES.keys())
def test_api_refuses_bad_file_and_saves_nothing(data, reason, token_client, h100, private_storage):
    before, rejected = _counts(private_storage), _rejections()
    response = token_client.post(
        "/api/v1/benchmark-results/",
        {"file": SimpleUploadedFile("result.json", data), "accelerator": h100.slug, "gpu_count": 1},
        format="multipart",
    )
    assert response.status_code == 400
    body = response.json()
    assert reason in body["detail"]
    assert body["code"] == "upload_rejected"
    assert reason in body["fields"]["file"][0]
    assert _counts(private_storage) == before == (0, [])
    assert _rejections() == rejected + 1
    event = AuditEvent.objects.get(action="benchmark_result.rejected")
    assert event.outcome == "rejected"
    assert reason in event.summary["reason"]


@pytest.mark.parametrize(("data", "reason"), BAD_FILES.values(), ids=BAD_FILES.keys())
def test_browser_form_refuses_bad_file_and_saves_nothing(
    data, reason, login, engineer, h100, private_storage
):
    client = login(engineer)
    before, rejected = _counts(private_storage), _rejections()
    response = client.post(
        "/benchmarks/upload/",
        {"file": SimpleUploadedFile("result.csv", data), "accelerator": h100.slug, "gpu_count": 1},
    )
    assert response.status_code == 400
    assert reason in response.content.decode()
    assert b'id="upload-panel"' in response.content  # the JS swaps this panel in
    assert _counts(private_storage) == before == (0, [])
    assert _rejections() == rejected + 1


def test_oversized_file_refused_by_api(token_client, h100, settings, private_storage):
    settings.BENCHMARK_UPLOAD_MAX_BYTES = 1000
    data = vllm_serve_bytes(40)
    response = token_client.post(
        "/api/v1/benchmark-results/",
        {"file": SimpleUploadedFile("big.json", data), "accelerator": h100.slug, "gpu_count": 1},
        format="multipart",
    )
    assert response.status_code == 413
    assert "limit is 1,000 bytes" in response.json()["detail"]
    assert _counts(private_storage) == (0, [])
    assert _rejections() == 1


def test_oversized_file_refused_by_browser_form(login, engineer, h100, settings, private_storage):
    settings.BENCHMARK_UPLOAD_MAX_BYTES = 1000
    client = login(engineer)
    response = client.post(
        "/benchmarks/upload/",
        {"file": SimpleUploadedFile("big.json", vllm_serve_bytes(40)), "accelerator": h100.slug,
         "gpu_count": 1},
    )  # fmt: skip
    assert response.status_code == 413
    assert "limit is 1,000 bytes" in response.content.decode()
    assert _counts(private_storage) == (0, [])
    assert _rejections() == 1


def test_streamed_upload_stops_at_the_cap_without_a_declared_length(
    engineer, h100, settings, private_storage
):
    """A body whose Content-Length understates it is still cut at the cap while streaming."""
    from benchmarks.upload_handlers import CappedTemporaryFileUploadHandler

    settings.BENCHMARK_UPLOAD_MAX_BYTES = 1000
    handler = CappedTemporaryFileUploadHandler()
    handler.new_file("file", "big.json", "application/json", 5000)
    handler.receive_data_chunk(b"x" * 800, 0)
    from django.core.files.uploadhandler import StopUpload

    with pytest.raises(StopUpload):
        handler.receive_data_chunk(b"x" * 800, 800)
    assert handler.too_large
    assert not Path(handler.file.temporary_file_path()).exists()


def test_file_is_streamed_to_a_temporary_file_not_memory(token_client, h100, settings, monkeypatch):
    """Uploads go through the capped temporary-file handler, whatever the size."""
    from django.core.files.uploadedfile import TemporaryUploadedFile

    from benchmarks.services import uploads

    seen = []
    real = uploads._digest

    def spy(upload):
        seen.append(type(upload))
        return real(upload)

    monkeypatch.setattr(uploads, "_digest", spy)
    token_client.post(
        "/api/v1/benchmark-results/",
        {"file": SimpleUploadedFile("r.json", vllm_serve_bytes(4)), "accelerator": h100.slug,
         "gpu_count": 1},
        format="multipart",
    )  # fmt: skip
    assert seen == [TemporaryUploadedFile]


def test_same_bytes_same_candidate_returns_the_existing_result(token_client, h100, private_storage):
    payload = vllm_serve_bytes(10)

    def post(gpus=1, accelerator=h100.slug):
        return token_client.post(
            "/api/v1/benchmark-results/",
            {"file": SimpleUploadedFile("r.json", payload), "accelerator": accelerator,
             "gpu_count": gpus, "precision": "bf16"},
            format="multipart",
        )  # fmt: skip

    first = post()
    again = post()
    assert first.status_code == 201
    assert again.status_code == 200
    assert again.json()["id"] == first.json()["id"]
    assert BenchmarkResult.objects.count() == 1
    assert len(stored_files(private_storage)) == 1


def test_missing_fields_are_clear_400s(token_client, h100, quote_b, private_storage):
    data = vllm_serve_bytes(4)
    cases = [
        ({"accelerator": h100.slug, "gpu_count": 1}, "file"),
        ({"file": SimpleUploadedFile("r.json", data), "gpu_count": 1}, "quote"),
        ({"file": SimpleUploadedFile("r.json", data), "accelerator": h100.slug}, "gpu_count"),
        ({"file": SimpleUploadedFile("r.json", data), "accelerator": h100.slug, "gpu_count": 0},
         "gpu_count"),
        ({"file": SimpleUploadedFile("r.json", data), "accelerator": "no-such-gpu",
          "gpu_count": 1}, "accelerator"),
        ({"file": SimpleUploadedFile("r.json", data), "quote": quote_b.pk,
          "accelerator": h100.slug, "gpu_count": 1}, "accelerator"),
    ]  # fmt: skip
    for body, field in cases:
        response = token_client.post("/api/v1/benchmark-results/", body, format="multipart")
        assert response.status_code == 400, body
        assert field in response.json()["fields"], response.json()
    assert _counts(private_storage) == (0, [])


def test_declared_length_over_cap_is_refused_before_reading(
    token_client, login, engineer, h100, settings, private_storage
):
    settings.BENCHMARK_UPLOAD_MAX_BYTES = 1000
    data = vllm_serve_bytes(1000)  # ~120 kB: over the cap plus the multipart allowance
    assert len(data) > 1000 + 64 * 1024
    api = token_client.post(
        "/api/v1/benchmark-results/",
        {"file": SimpleUploadedFile("big.json", data), "accelerator": h100.slug, "gpu_count": 1},
        format="multipart",
    )
    assert api.status_code == 413
    assert api.json()["code"] == "upload_too_large"
    page = login(engineer).post(
        "/benchmarks/upload/",
        {"file": SimpleUploadedFile("big.json", data), "accelerator": h100.slug, "gpu_count": 1},
    )
    assert page.status_code == 413
    assert "too large" in page.content.decode()
    assert _counts(private_storage) == (0, [])
    assert _rejections() == 2


def test_u20_a_truncated_file_is_refused_in_one_plain_sentence(
    login, engineer, h100, private_storage
):
    """U20: a cut-off file says so, once, instead of listing every format signature."""
    response = login(engineer).post(
        "/benchmarks/upload/",
        {
            "file": SimpleUploadedFile("serve.json", vllm_serve_bytes(20)[:700]),
            "accelerator": h100.slug,
            "gpu_count": 1,
        },
    )
    assert response.status_code == 400
    html = response.content.decode()
    assert "ends mid-way, at byte 700, so it is not valid JSON: it looks cut off." in html
    assert "Export or copy it again in full" in html
    assert "tried:" not in html
    assert _counts(private_storage) == (0, [])


AIPERF_JSONL = (
    Path(__file__).resolve().parents[1]
    / "parsers/fixtures/aiperf/aiperf_examples_run1_profile_export.jsonl"
)


@pytest.mark.parametrize("cut", [0.5, 0.9])
def test_u20_truncated_json_lines_say_cut_off_too(cut):
    data = AIPERF_JSONL.read_bytes()
    cut_at = int(len(data) * cut)
    if data[cut_at - 1 : cut_at] == b"\n":
        cut_at -= 5  # mid-line, as a cut-off download ends
    with pytest.raises(parsers.ParseError, match="looks cut off") as refused:
        parsers.parse(data[:cut_at], "records.jsonl")
    assert "tried:" not in str(refused.value)
