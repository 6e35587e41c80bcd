"""A real Celery worker subprocess over Redis runs a task the web side enqueued on commit."""

from __future__ import annotations

import pytest

from procurement.models import WorkerProbe
from procurement.services.system import worker_probe_request
from tests.support import worker


@pytest.mark.services
@pytest.mark.django_db(transaction=True)
def test_worker_subprocess_completes_probe_enqueued_on_commit(tmp_path, admin_member):
    worker.reset_broker()  # earlier tests may point the app at private brokers
    proc = worker.start_worker(tmp_path / "worker.log")
    try:
        probe = worker_probe_request(acting_user=admin_member)  # autocommit: on_commit fires now
        done = worker.wait_until(
            lambda: WorkerProbe.objects.filter(pk=probe.pk, completed_at__isnull=False).exists(),
            60,
        )
        assert done, (tmp_path / "worker.log").read_text()[-3000:]
    finally:
        worker.stop_worker(proc)
