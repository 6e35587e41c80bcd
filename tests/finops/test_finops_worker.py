"""A bill is read by a real Celery worker subprocess, enqueued when the import commits."""

from __future__ import annotations

from datetime import date

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from finops import services
from finops.models import BillingImport
from tests.support import worker

HEADER = (
    "BillingAccountId,BillingCurrency,BillingPeriodStart,ChargePeriodStart,EffectiveCost,"
    "ServiceProviderName,SkuId,ConsumedQuantity,ConsumedUnit\n"
)
ROW = "acct-1,USD,2026-03-01T00:00:00Z,2026-03-02T00:00:00Z,2.50,Provider A,h100,1,GPU-Hours\n"


@pytest.mark.services
@pytest.mark.django_db(transaction=True)
def test_a_bill_is_read_on_a_real_worker(tmp_path, monkeypatch, decision, finance):
    worker.reset_broker()
    monkeypatch.setenv("PRIVATE_MEDIA_ROOT", str(tmp_path))  # the worker's storage
    data = (HEADER + ROW * 20_000).encode()
    log = tmp_path / "worker.log"
    proc = worker.start_worker(log)
    try:
        job = services.billing_import_create(  # autocommit: the task is sent at once
            acting_user=finance,
            comparison=decision,
            month=date(2026, 3, 1),
            upload=SimpleUploadedFile("march.csv", data),
            name="march.csv",
            size=len(data),
            provider_names=["Provider A"],
            sku_ids=["h100"],
        )

        def finished() -> bool:
            found = BillingImport.objects.values_list("status", flat=True).get(pk=job.pk)
            return found in (BillingImport.Status.DONE, BillingImport.Status.FAILED)

        assert worker.wait_until(finished, 180, every=0.25), log.read_text()[-3000:]
    finally:
        worker.stop_worker(proc)
    job.refresh_from_db()
    assert job.status == BillingImport.Status.DONE, (job.error, log.read_text()[-3000:])
    assert (job.rows_matched, job.progress) == (20_000, 1.0)
    assert job.gpu_cost_usd == 50_000
