"""S-11/S-12/R-07: every file of the malformed-upload corpus (tests/reliability/corpus/), an
oversized file and a 100,000-column CSV are sent to every upload in the product:

* `POST /api/v1/benchmark-results/` (token auth, as a script would),
* the browser upload form `/benchmarks/upload/`,
* the checklist evidence upload, HTML (`/checklist/quotes/<id>/answer/`) and API
  (`/api/v1/quotes/<id>/checklist/answers/`),
* the catalog import `/catalog/import/` (CSV as a price list; JSON as a LiteLLM price map).

Each answer is a 4xx whose message names the problem; the row count of every domain table
is unchanged, no file is left in the private storage folder, and the refusal is audit-logged
where the area promises it.
"""

from __future__ import annotations

import html
import json
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db.models import Count
from django.utils import timezone
from knox.models import AuthToken

from core.models import AuditEvent
from tests.factories import AcceleratorFactory, ProviderFactory, QuoteFactory
from tests.reliability.conftest import domain_counts, stored_files

pytestmark = pytest.mark.django_db

CORPUS = Path(__file__).resolve().parent / "corpus"
MANIFEST: dict[str, str] = json.loads((CORPUS / "manifest.json").read_text())
PDF = b"%PDF-1.7\n1 0 obj << /Type /Catalog >> endobj\ntrailer << >>\n%%EOF\n"

# What the benchmark upload (API and browser alike: one service) must say about each file.
BENCHMARK = {
    "empty.json": "The file is empty",
    "empty.csv": "The file is empty",
    "whitespace_only.csv": "is empty",
    "truncated.json": "is not valid JSON",
    "unknown_format.json": "unrecognised JSON object",
    "unknown_columns.csv": "unrecognised text file",
    "nan_latencies.json": "NaN/Infinity is not a valid ms value",
    "negative_latencies.json": "negative values are not allowed",
    "huge_numbers.json": "large",
    "nan_latencies.csv": "NaN/Infinity is not allowed",
    "negative_latencies.csv": "is negative",
    "huge_numbers.csv": "'1e400'",
    "non_utf8.csv": "'caf",  # names the undecodable cell
    "non_utf8_late.csv": "not UTF-8",
    "formula_cells.csv": "unrecognised text file",
    "formula_requests.csv": "spreadsheet formula",
    "deeply_nested.json": "nesting is too deep",
    "deeply_nested_object.json": "nesting is too deep",
    "duplicate_keys.json": "duplicate",
    "json_in.csv": "unrecognised JSON object",
    "nul_bytes.csv": "not a number",
    "binary.csv": "not UTF-8",
    "utf16_no_bom.csv": "unrecognised text file",
}
# Evidence is a document, not data: a well-formed UTF-8 text .csv is acceptable evidence
# (served back as an attachment with nosniff), so only the files that are not acceptable
# documents are listed here.
EVIDENCE = {
    "empty.json": "The submitted file is empty",
    "empty.csv": "The submitted file is empty",
    "truncated.json": "Files of type .json are not accepted",
    "unknown_format.json": "Files of type .json are not accepted",
    "deeply_nested.json": "Files of type .json are not accepted",
    "duplicate_keys.json": "Files of type .json are not accepted",
    "non_utf8.csv": "not valid UTF-8",
    "non_utf8_late.csv": "not valid UTF-8",
    "nul_bytes.csv": "NUL bytes",
    "binary.csv": "NUL bytes",
    "utf16_no_bom.csv": "NUL bytes",
}
# The catalog import: .csv files as a price list, .json files as a LiteLLM price map.
MISSING = "Missing column(s): provider, accelerator"
CATALOG = {
    "empty.json": "The submitted file is empty",
    "empty.csv": "The submitted file is empty",
    "whitespace_only.csv": "The file is empty",
    "truncated.json": "not valid JSON: Unterminated string",
    "unknown_format.json": "Each entry must be a JSON object",
    "unknown_columns.csv": MISSING,
    "nan_latencies.json": "NaN is not a valid number",
    "negative_latencies.json": "Each entry must be a JSON object",
    "huge_numbers.json": "Each entry must be a JSON object",
    "nan_latencies.csv": MISSING,
    "negative_latencies.csv": MISSING,
    "huge_numbers.csv": MISSING,
    "non_utf8.csv": "not UTF-8 text",
    "non_utf8_late.csv": "not UTF-8 text",
    "formula_cells.csv": "Formula cells are not accepted",
    "formula_requests.csv": MISSING,
    "deeply_nested.json": "nested too deeply",
    "deeply_nested_object.json": "nested too deeply",
    "duplicate_keys.json": "duplicate key(s) completed",
    "json_in.csv": MISSING,
    "nul_bytes.csv": "NUL bytes",
    "binary.csv": "NUL bytes",
    "utf16_no_bom.csv": "NUL bytes",
}


@pytest.fixture
def world(db, private_storage, checklist_items, provider_a, vendor_a, engineer, lead):
    """An H100, the providers the price list names, and vendor A's reserved quote."""
    h100 = AcceleratorFactory(slug="h100-sxm-80gb", name="H100 SXM 80GB")
    ProviderFactory(slug="northwind", name="Northwind")
    quote = QuoteFactory(
        provider=provider_a,
        accelerator=h100,
        capacity_model="reserved",
        term_months=12,
        entered_by=vendor_a,
    )
    return {"quote": quote, "storage": private_storage}


@pytest.fixture
def token_client(api_client, engineer):
    _, key = AuthToken.objects.create(user=engineer)
    api_client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    return api_client


def _page_text(response) -> str:
    return html.unescape(response.content.decode("utf-8", "replace"))


class Unchanged:
    """Snapshot of every domain table's row count (and the audit log) before a request."""

    def __init__(self, storage: Path) -> None:
        self.storage = storage
        self.counts = domain_counts()
        self.files = stored_files(storage)
        self.audits = dict(
            AuditEvent.objects.values_list("action").annotate(n=Count("id")).order_by()
        )

    def check(self) -> None:
        assert domain_counts() == self.counts
        assert stored_files(self.storage) == self.files == []

    def audit_of(self, action: str) -> int:
        return self.audits.get(action, 0)


def _benchmark_body(upload: SimpleUploadedFile) -> dict:
    return {"file": upload, "accelerator": "h100-sxm-80gb", "gpu_count": 1}


def _corpus(name: str) -> SimpleUploadedFile:
    return SimpleUploadedFile(name, (CORPUS / name).read_bytes())


def test_reliability_corpus_is_complete():
    """Every corpus file is checked by each data upload; the manifest says what is wrong."""
    on_disk = {p.name for p in CORPUS.iterdir() if p.suffix in (".json", ".csv")}
    on_disk.discard("manifest.json")
    assert on_disk == set(MANIFEST)
    assert set(BENCHMARK) == set(MANIFEST)
    assert set(CATALOG) == set(MANIFEST)
    assert set(EVIDENCE) <= set(MANIFEST)


def _each(files: dict[str, str], send, storage: Path, audit_action: str | None = None) -> None:
    """Send every file; collect (not stop at) the files whose refusal is wrong."""
    problems = []
    for name, expected in sorted(files.items()):
        before = Unchanged(storage)
        status, text = send(name)
        if not 400 <= status < 500 or expected.lower() not in text.lower():
            problems.append(f"{name}: {status} {text[:300]!r} (expected {expected!r})")
        elif domain_counts() != before.counts or stored_files(storage) != before.files:
            problems.append(f"{name}: refused, but rows or files changed")
        elif audit_action and not AuditEvent.objects.filter(action=audit_action).count() > (
            before.audit_of(audit_action)
        ):
            problems.append(f"{name}: refused, but the refusal was not audit-logged")
    assert not problems, "\n".join(problems)


def test_reliability_benchmark_api_refuses_every_corpus_file(token_client, world):
    def send(name: str) -> tuple[int, str]:
        response = token_client.post(
            "/api/v1/benchmark-results/",
            _benchmark_body(_corpus(name)),
            format="multipart",
        )
        body = response.json()
        if response.status_code == 400:
            assert body["fields"]["file"] == [body["detail"]]
        return response.status_code, str(body.get("detail", body))

    _each(BENCHMARK, send, world["storage"], "benchmark_result.rejected")


def test_reliability_benchmark_form_refuses_every_corpus_file(login, engineer, world):
    client = login(engineer)

    def send(name: str) -> tuple[int, str]:
        response = client.post(
            "/benchmarks/upload/",
            {"file": _corpus(name), "quote": world["quote"].pk, "gpu_count": 1, "phase": 2},
        )
        text = _page_text(response)
        if response.status_code == 400:
            assert "nothing was saved" in text
        return response.status_code, text

    _each(BENCHMARK, send, world["storage"], "benchmark_result.rejected")


def _answer(upload: SimpleUploadedFile) -> dict:
    prefix = "gpu-model-node-shape"
    return {
        f"{prefix}-answer": "8x H100 SXM per node",
        f"{prefix}-status": "yes",
        f"{prefix}-scope": "quote",
        f"{prefix}-evidence_file": upload,
    }


def test_reliability_evidence_form_refuses_every_bad_document(login, vendor_a, world):
    client = login(vendor_a)
    url = f"/checklist/quotes/{world['quote'].pk}/answer/"

    def send(name: str) -> tuple[int, str]:
        response = client.post(url, _answer(_corpus(name)))
        text = _page_text(response)
        if response.status_code == 400:
            assert "Nothing was saved" in text
        return response.status_code, text

    _each(EVIDENCE, send, world["storage"])


def test_reliability_evidence_api_refuses_every_bad_document(api_client, vendor_a, world):
    api_client.force_authenticate(vendor_a)
    url = f"/api/v1/quotes/{world['quote'].pk}/checklist/answers/"

    def send(name: str) -> tuple[int, str]:
        data = {
            "item": "gpu-model-node-shape",
            "answer": "8x H100 SXM per node",
            "status": "yes",
            "evidence_file": _corpus(name),
        }
        response = api_client.post(url, data, format="multipart")
        body = response.json()
        return response.status_code, " ".join(body.get("fields", {}).get("evidence_file", []))

    _each(EVIDENCE, send, world["storage"])


def _import(client, upload: SimpleUploadedFile, kind: str):
    return client.post(
        "/catalog/import/",
        {"kind": kind, "file": upload, "captured_on": timezone.now().date().isoformat()},
    )


def test_reliability_catalog_import_refuses_every_corpus_file(login, lead, world):
    client = login(lead)

    def send(name: str) -> tuple[int, str]:
        kind = "litellm" if name.endswith(".json") else "price_list"
        response = _import(client, _corpus(name), kind)
        text = _page_text(response)
        if response.status_code == 400:
            assert "nothing was imported" in text or "Please correct" in text
        return response.status_code, text

    _each(CATALOG, send, world["storage"])


# --- generated files: over the size cap, absurdly wide ---------------------------------------


def test_reliability_oversized_benchmark_upload_is_413_and_stores_nothing(
    token_client, login, engineer, world, settings
):
    settings.BENCHMARK_UPLOAD_MAX_BYTES = 50_000
    big = (CORPUS / "nan_latencies.csv").read_bytes() * 1000  # ~250 kB
    before = Unchanged(world["storage"])
    response = token_client.post(
        "/api/v1/benchmark-results/",
        _benchmark_body(SimpleUploadedFile("big.csv", big)),
        format="multipart",
    )
    assert response.status_code == 413
    assert "too large" in response.json()["detail"]
    assert "50,000 bytes" in response.json()["detail"]
    form = login(engineer).post(
        "/benchmarks/upload/",
        {"file": SimpleUploadedFile("big.csv", big), "quote": world["quote"].pk, "gpu_count": 1},
    )
    assert form.status_code in (400, 413)
    assert "too large" in _page_text(form)
    before.check()


def test_reliability_oversized_evidence_is_refused_and_stores_nothing(
    login, api_client, vendor_a, world, settings
):
    settings.EVIDENCE_UPLOAD_MAX_BYTES = 10_000
    big = PDF + b"0" * 50_000
    before = Unchanged(world["storage"])
    page = login(vendor_a).post(
        f"/checklist/quotes/{world['quote'].pk}/answer/",
        _answer(SimpleUploadedFile("big.pdf", big)),
    )
    assert page.status_code == 400
    assert "larger than the 10 kB limit" in _page_text(page)
    api_client.force_authenticate(vendor_a)
    response = api_client.post(
        f"/api/v1/quotes/{world['quote'].pk}/checklist/answers/",
        {
            "item": "gpu-model-node-shape",
            "answer": "x",
            "status": "yes",
            "evidence_file": SimpleUploadedFile("big.pdf", big),
        },
        format="multipart",
    )
    assert response.status_code == 400
    assert "larger than the 10 kB limit" in response.json()["detail"]
    before.check()


def test_reliability_oversized_catalog_import_is_refused(login, lead, world):
    big = b"provider,accelerator\n" + b"x" * 20_000_001
    before = Unchanged(world["storage"])
    response = _import(login(lead), SimpleUploadedFile("big.csv", big), "price_list")
    assert response.status_code == 400
    assert "larger than 20 MB" in _page_text(response)
    before.check()


def test_reliability_a_100000_column_csv_is_refused_everywhere(token_client, login, lead, world):
    header = ",".join(f"c{i}" for i in range(100_000)).encode()
    wide = header + b"\n" + b",".join(b"1" for _ in range(100_000)) + b"\n"
    before = Unchanged(world["storage"])
    response = token_client.post(
        "/api/v1/benchmark-results/",
        _benchmark_body(SimpleUploadedFile("wide.csv", wide)),
        format="multipart",
    )
    assert response.status_code == 400
    assert "unrecognised" in response.json()["detail"]
    page = _import(login(lead), SimpleUploadedFile("wide.csv", wide), "price_list")
    assert page.status_code == 400
    assert "columns" in _page_text(page)
    before.check()
