"""The upload view sets its upload handlers before CSRF reads the body (csrf_exempt outside),
so it must still enforce CSRF inside; session API writes need the token too."""

from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from rest_framework.test import APIClient

from benchmarks.models import BenchmarkResult
from tests.benchmarks.factories_benchmarks import vllm_serve_bytes

pytestmark = pytest.mark.django_db


def _body(h100):
    return {"file": SimpleUploadedFile("r.json", vllm_serve_bytes(5)), "accelerator": h100.slug,
            "gpu_count": 1, "precision": "bf16"}  # fmt: skip


def test_browser_upload_without_csrf_token_is_refused(engineer, h100):
    client = Client(enforce_csrf_checks=True)
    client.force_login(engineer)
    assert client.post("/benchmarks/upload/", _body(h100)).status_code == 403
    assert not BenchmarkResult.objects.exists()


def test_browser_upload_with_csrf_token_works(engineer, h100):
    client = Client(enforce_csrf_checks=True)
    client.force_login(engineer)
    page = client.get("/benchmarks/upload/")
    token = page.context["csrf_token"]
    response = client.post("/benchmarks/upload/", {**_body(h100), "csrfmiddlewaretoken": token})
    assert response.status_code == 302
    assert BenchmarkResult.objects.count() == 1


@pytest.mark.parametrize("path", ["/benchmarks/plans/new/"])
def test_other_posts_enforce_csrf(path, engineer):
    client = Client(enforce_csrf_checks=True)
    client.force_login(engineer)
    assert client.post(path, {}).status_code == 403


def test_session_api_upload_needs_csrf(engineer, h100):
    client = APIClient(enforce_csrf_checks=True)
    client.force_login(engineer)
    response = client.post("/api/v1/benchmark-results/", _body(h100), format="multipart")
    assert response.status_code == 403
    assert not BenchmarkResult.objects.exists()
