"""A weekly refresh that can be repeated (R2, R13): the scheduled import from a URL, the
management command, the API and the form option."""

from __future__ import annotations

import http.server
import json
import runpy
import threading
from datetime import date

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.test import override_settings

from catalog.models import ModelApiRoute, Quote
from catalog.tasks import catalog_import_refresh_task
from core.models import AuditEvent
from tests.factories import ProviderFactory

pytestmark = pytest.mark.django_db

LAMBDA_VMS = (
    "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,GpuInfo,Price,SpotPrice,"
    "Region,AvailabilityZone\n"
    "gpu_1x_h100_pcie,H100,1.0,26.0,200.0,,2.49,,us-east-1,\n"
    "gpu_8x_h100_sxm5,H100,8.0,208.0,1800.0,,23.92,,us-east-1,\n"
)
PRICES = {
    "gpt-4o": {
        "litellm_provider": "openai",
        "mode": "chat",
        "input_cost_per_token": 2.5e-06,
        "output_cost_per_token": 1e-05,
    },
    "azure/gpt-4o-alias": {"alias_of": "gpt-4o"},
}


class _Files(http.server.BaseHTTPRequestHandler):
    files: dict[str, bytes] = {}

    def do_GET(self) -> None:
        body = self.files.get(self.path)
        if body is None:
            self.send_error(404)
            return
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def loopback(settings):
    """A loopback HTTP server (port 0) serving `server.files[path]` (allowed by name: a
    scheduled import refuses private and loopback hosts otherwise)."""
    settings.CATALOG_IMPORT_PRIVATE_HOSTS = ["127.0.0.1"]
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Files)
    _Files.files = {}
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    server.base = f"http://127.0.0.1:{server.server_address[1]}"
    yield server
    server.shutdown()
    server.server_close()
    thread.join()


def test_r2_scheduled_import_fetches_the_configured_url_and_audits(lead, catalog, loopback):
    """R2: the beat task imports each configured file; a repeat changes nothing."""
    ProviderFactory(slug="openai", name="OpenAI")
    lam = ProviderFactory(slug="lambda", name="Lambda")
    _Files.files = {"/prices.json": json.dumps(PRICES).encode(), "/vms.csv": LAMBDA_VMS.encode()}
    sources = [
        {"kind": "litellm", "url": f"{loopback.base}/prices.json"},
        {"kind": "skypilot", "url": f"{loopback.base}/vms.csv", "provider": "lambda"},
        {"kind": "litellm", "url": f"{loopback.base}/missing.json"},
    ]
    with override_settings(CATALOG_IMPORT_SOURCES=sources, CATALOG_IMPORT_USER="lead"):
        first = catalog_import_refresh_task()
        assert [r["ok"] for r in first] == [True, True, False]
        assert first[0]["created"] == 1
        assert first[0]["skipped"] == {"alias of another entry (the target entry is imported)": 1}
        assert first[1]["created"] == 2
        assert "404" in first[2]["error"]
        again = catalog_import_refresh_task()
    assert again[1]["duplicate_of"]
    assert ModelApiRoute.objects.count() == 1
    assert Quote.objects.filter(provider=lam).count() == 2
    imported = AuditEvent.objects.filter(action="catalog.imported")
    assert imported.count() == 2
    assert {e.actor_name for e in imported} == {"lead"}
    failed = AuditEvent.objects.filter(action="catalog.import_failed")
    assert failed.count() == 2
    assert failed.first().summary["source"].endswith("/missing.json")


def test_scheduled_import_without_a_user_fails_clearly_in_the_audit_trail(catalog, loopback):
    with override_settings(
        CATALOG_IMPORT_SOURCES=[{"kind": "litellm", "url": f"{loopback.base}/x"}],
        CATALOG_IMPORT_USER="",
    ):
        [result] = catalog_import_refresh_task()
    assert not result["ok"]
    assert "CATALOG_IMPORT_USER" in result["error"]
    assert AuditEvent.objects.filter(action="catalog.import_failed").exists()


def test_beat_entry_exists_only_when_sources_are_configured(monkeypatch):
    monkeypatch.setenv("SECRET_KEY", "k" * 60)
    monkeypatch.delenv("CATALOG_IMPORT_SOURCES", raising=False)
    assert (
        "catalog-import-refresh" not in runpy.run_path("config/settings.py")["CELERY_BEAT_SCHEDULE"]
    )
    monkeypatch.setenv("CATALOG_IMPORT_SOURCES", '[{"kind": "litellm", "path": "/srv/p.json"}]')
    monkeypatch.setenv("CATALOG_IMPORT_EVERY_HOURS", "24")
    settings = runpy.run_path("config/settings.py")
    entry = settings["CELERY_BEAT_SCHEDULE"]["catalog-import-refresh"]
    assert entry["task"] == "catalog.tasks.catalog_import_refresh_task"
    assert entry["schedule"].total_seconds() == 24 * 3600


def test_management_command_imports_a_path_with_its_date(lead, catalog, tmp_path, capsys):
    lam = ProviderFactory(slug="lambda", name="Lambda")
    path = tmp_path / "vms.csv"
    path.write_text(LAMBDA_VMS)
    call_command(
        "import_prices", "skypilot", str(path), "--provider", "lambda", "--user", "lead",
        "--captured-on", "2026-11-20",
    )  # fmt: skip
    out = json.loads(capsys.readouterr().out)
    assert out[0]["created"] == 2
    assert {q.quoted_at.date() for q in Quote.objects.filter(provider=lam)} == {date(2026, 11, 20)}


def test_r16_api_import_reports_outcome_and_refuses_a_wrong_cloud(lead, catalog, api_client):
    """R16 through the API; R1's partial import is the API default for public files."""
    ProviderFactory(slug="lambda", name="Lambda")
    ProviderFactory(slug="gcp", name="Google Cloud")
    api_client.force_authenticate(user=lead)
    ok = api_client.post(
        "/api/v1/catalog-imports/",
        {
            "kind": "skypilot",
            "provider": "lambda",
            "captured_on": "2026-11-20",
            "file": SimpleUploadedFile("vms.csv", LAMBDA_VMS.encode()),
        },
        format="multipart",
    )
    assert ok.status_code == 201, ok.content
    assert ok.json()["created"] == 2
    wrong = api_client.post(
        "/api/v1/catalog-imports/",
        {
            "kind": "skypilot",
            "provider": "gcp",
            "file": SimpleUploadedFile("vms.csv", LAMBDA_VMS.encode()),
        },
        format="multipart",
    )
    assert wrong.status_code == 400
    assert "Lambda instance types" in json.dumps(wrong.json())


def test_api_import_needs_a_catalog_writer(engineer, api_client):
    api_client.force_authenticate(user=engineer)
    response = api_client.post(
        "/api/v1/catalog-imports/",
        {"kind": "litellm", "file": SimpleUploadedFile("p.json", b"{}")},
        format="multipart",
    )
    assert response.status_code == 403


def test_form_all_or_nothing_refuses_a_file_with_one_bad_entry(login, lead, catalog):
    ProviderFactory(slug="openai", name="OpenAI")
    prices = {**PRICES, "bad": {"mode": "chat", "input_cost_per_token": 1e-06}}
    client = login(lead)

    def post(**extra):
        upload = SimpleUploadedFile("p.json", json.dumps(prices).encode())
        return client.post(
            "/catalog/import/",
            {"kind": "litellm", "file": upload, "captured_on": "2026-11-20", **extra},
        )

    refused = post(all_or_nothing="on")
    assert refused.status_code == 400
    assert ModelApiRoute.objects.count() == 0
    partial = post()
    assert partial.status_code == 200
    html = partial.content.decode()
    assert "1 row not imported" in html
    assert "Missing provider." in html
    assert ModelApiRoute.objects.count() == 1


def test_r13_background_import_runs_in_a_worker_with_progress(
    login, lead, catalog, monkeypatch, django_capture_on_commit_callbacks
):
    """R13: a file handed to a worker shows its progress, then its outcome."""
    from catalog.models import CatalogImportJob
    from catalog.services import import_jobs

    sent = []
    monkeypatch.setattr(import_jobs, "_send", sent.append)
    ProviderFactory(slug="lambda", name="Lambda")
    client = login(lead)
    upload = SimpleUploadedFile("vms.csv", LAMBDA_VMS.encode())
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(
            "/catalog/import/",
            {
                "kind": "skypilot",
                "file": upload,
                "captured_on": "2026-11-20",
                "provider": ProviderFactory._meta.model.objects.get(slug="lambda").pk,
                "background": "on",
            },
        )
    job = CatalogImportJob.objects.get()
    assert response.status_code == 302
    assert response["Location"] == f"/catalog/import/jobs/{job.pk}/"
    assert Quote.objects.count() == 0
    queued = client.get(response["Location"]).content.decode()
    assert "Queued" in queued
    assert 'http-equiv="refresh"' in queued
    assert sent == [job.pk]  # sent once the transaction committed

    stages = []
    real = import_jobs.catalog_import

    def spy(**kwargs):
        stages.append(kwargs["progress"])
        return real(**kwargs)

    monkeypatch.setattr(import_jobs, "catalog_import", spy)
    import_jobs.import_job_run(job.pk)
    import_jobs.import_job_run(job.pk)  # a second delivery does nothing
    assert len(stages) == 1
    job.refresh_from_db()
    assert (job.status, job.progress, job.outcome["created"]) == ("done", 1.0, 2)
    assert bytes(job.data) == b""
    done = client.get(f"/catalog/import/jobs/{job.pk}/").content.decode()
    assert "2</strong> rows imported" in done
    assert 'http-equiv="refresh"' not in done


def test_background_import_of_a_refused_file_lists_its_errors(lead, catalog, monkeypatch):
    from catalog.models import CatalogImportJob
    from catalog.services import import_jobs

    monkeypatch.setattr(import_jobs, "_send", lambda job_id: None)
    job = import_jobs.import_job_create(
        acting_user=lead,
        kind="price_list",
        data=b"provider,accelerator\nx,y\n",
        filename="bad.csv",
        captured_on=date(2026, 11, 20),
    )
    import_jobs.import_job_run(job.pk)
    job = CatalogImportJob.objects.get(pk=job.pk)
    assert job.status == "failed"
    assert "Missing column" in job.errors[0]["message"]


def test_r13_api_background_import_returns_the_job_and_its_progress(
    lead, catalog, api_client, monkeypatch
):
    """R13 through the API: 202 with the job, then GET shows its outcome."""
    from catalog.services import import_jobs

    monkeypatch.setattr(import_jobs, "_send", lambda job_id: None)
    ProviderFactory(slug="lambda", name="Lambda")
    api_client.force_authenticate(user=lead)
    queued = api_client.post(
        "/api/v1/catalog-imports/",
        {
            "kind": "skypilot",
            "provider": "lambda",
            "captured_on": "2026-11-20",
            "background": "true",
            "file": SimpleUploadedFile("vms.csv", LAMBDA_VMS.encode()),
        },
        format="multipart",
    )
    assert queued.status_code == 202, queued.content
    job_id = queued.json()["id"]
    assert queued.json()["status"] == "queued"
    import_jobs.import_job_run(job_id)
    done = api_client.get(f"/api/v1/catalog-imports/{job_id}/").json()
    assert (done["status"], done["progress"], done["outcome"]["created"]) == ("done", 1.0, 2)
