"""L2, L3: /healthz tells the truth, and `manage.py deploy` refuses to finish without static files.

Before: /healthz checked the database and the broker only, so it answered `200 ok` with no
worker or beat at all, with comparisons queued for hours, and with no static manifest while
every page was a 500.
"""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
from django.core.management import CommandError, call_command
from django.test import override_settings
from django.utils import timezone

from benchmarks.models import BenchmarkResult
from procurement.models import Comparison, Heartbeat
from procurement.tasks import heartbeat_task
from tests.benchmarks.factories_benchmarks import BenchmarkResultFactory
from tests.factories import ComparisonFactory

pytestmark = pytest.mark.django_db


def _health(client):
    response = client.get("/healthz")
    return response.status_code, response.json()


def test_l3_no_worker_ever_answered_is_degraded(client):
    status, body = _health(client)
    assert body["status"] == "degraded"
    assert body["workers"]["ok"] is False
    assert "no worker has run the beat's heartbeat" in body["workers"]["detail"]
    # The pages still work: a load balancer must keep this web process (docs/reliability.md).
    assert status == 200
    assert body["database"]["ok"]
    assert body["broker"]["ok"]
    assert body["static"]["ok"]


def test_l3_a_heartbeat_run_by_a_worker_makes_it_ok_until_it_is_older_than_the_limit(
    client, settings
):
    heartbeat_task()  # what a worker runs when the beat sends it
    status, body = _health(client)
    assert (status, body["status"]) == (200, "ok"), body
    assert body["workers"]["ok"] is True

    # 181 s ago with a 180 s limit: the beat or every worker stopped three minutes ago.
    settings.HEALTH_HEARTBEAT_MAX_AGE_S = 180
    Heartbeat.objects.update(at=timezone.now() - timedelta(seconds=181))
    status, body = _health(client)
    assert body["status"] == "degraded"
    assert "limit 180 s" in body["workers"]["detail"]


def test_l3_the_beat_schedules_the_heartbeat_every_minute(settings):
    entry = settings.CELERY_BEAT_SCHEDULE["heartbeat"]
    assert entry["task"] == heartbeat_task.name
    assert entry["schedule"] == timedelta(minutes=1)


def test_l3_a_comparison_or_parse_queued_past_the_limit_is_degraded(client, settings):
    heartbeat_task()
    settings.HEALTH_QUEUE_MAX_AGE_S = 600
    comparison = ComparisonFactory(status=Comparison.Status.QUEUED)
    _, body = _health(client)
    assert body["status"] == "ok", body
    assert body["queues"]["detail"].startswith("oldest queued comparison")

    Comparison.objects.filter(pk=comparison.pk).update(
        created_at=timezone.now() - timedelta(seconds=601)
    )
    status, body = _health(client)
    assert (status, body["status"]) == (200, "degraded")
    assert "oldest queued comparison 601 s" in body["queues"]["detail"]
    assert "limit 600 s" in body["queues"]["detail"]

    Comparison.objects.filter(pk=comparison.pk).update(status=Comparison.Status.READY)
    result = BenchmarkResultFactory(status=BenchmarkResult.Status.PENDING)
    BenchmarkResult.objects.filter(pk=result.pk).update(
        created_at=timezone.now() - timedelta(seconds=900)
    )
    _, body = _health(client)
    assert body["status"] == "degraded"
    assert "oldest queued parse 900 s" in body["queues"]["detail"]


def _manifest_storage(root):
    return override_settings(
        STATIC_ROOT=str(root),
        STORAGES={
            "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
            "staticfiles": {"BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"},
        },
    )


def test_l2_no_static_manifest_is_a_503(client, tmp_path):
    """The production storage without `collectstatic`: every page would be a 500."""
    heartbeat_task()
    with _manifest_storage(tmp_path):
        status, body = _health(client)
        assert status == 503
        assert body["status"] == "degraded"
        assert body["static"] == {
            "ok": False,
            "detail": "no static files manifest: run `manage.py deploy` (collectstatic)",
        }
        (tmp_path / "staticfiles.json").write_text(
            json.dumps({"version": "1.1", "paths": {"favicon.svg": "favicon.0123abcd.svg"}})
        )
    with _manifest_storage(tmp_path):  # a fresh storage reads the manifest, as a restart does
        status, body = _health(client)
        assert status == 503
        assert (
            "favicon.0123abcd.svg is in the manifest but not in STATIC_ROOT"
            in (body["static"]["detail"])
        )
        (tmp_path / "favicon.0123abcd.svg").write_text("<svg/>")
    with _manifest_storage(tmp_path):
        status, body = _health(client)
        assert (status, body["status"], body["static"]["ok"]) == (200, "ok", True), body


def test_l2_deploy_migrates_loads_the_catalog_and_fails_clearly_without_static_files(tmp_path):
    from catalog.models import Accelerator

    Accelerator.objects.all().delete()
    with _manifest_storage(tmp_path), pytest.raises(CommandError) as refused:
        call_command("deploy", "--skip-static", verbosity=0)
    assert str(refused.value) == (
        "Static files: no static files manifest: run `manage.py deploy` (collectstatic)"
    )
    assert Accelerator.objects.exists()  # load_catalog ran before the static check
