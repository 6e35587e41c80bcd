"""Security round 4, R3/R4: FinOps inputs are bounded. A bill line of 1E+30 left the import
"running" for ever, re-driven every minute; accepted-output files with 1E+30, +Inf or NaN gave
500s; a 46 KB Parquet bill of 2 M rows held a worker slot, a 3 KB one asked for ~50 GB. Now
every number is bounded with a row-naming message, an import that never finishes is failed
after MAX_ATTEMPTS, a write that fails fails the import, and a Parquet file is judged by its
metadata (rows, decoded bytes) and its dictionaries (text length) before a row is read."""

from __future__ import annotations

import io
from datetime import timedelta

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse
from django.utils import timezone

from core.errors import DomainError
from finops import services
from finops.focus import reader
from finops.models import ActualOutputs, BillingImport
from finops.tasks import billing_import_run_task
from tests.finops.test_finops_imports import HEADER, create, line, run

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("cost", ["1E+30", "-1E+30", "1000000000001", "Infinity", "NaN"])
def test_r3_an_absurd_bill_line_fails_the_import_naming_the_row(decision, finance, cost):
    bill = HEADER + line("5500.00", "2000", "GPU-Hours") + line(cost, "200", "GPU-Hours")
    job = run(decision, bill.encode(), finance)
    assert job.status == BillingImport.Status.FAILED
    assert "Row 2, column EffectiveCost" in job.error


def test_r3_totals_beyond_the_fields_fail_instead_of_wedging(decision, finance):
    # 200 lines of 999,999,999,999 = 1.99999999999800E+14, over the 10^14 the totals hold.
    bill = HEADER + line("999999999999", "1", "GPU-Hours") * 200
    job = run(decision, bill.encode(), finance)
    assert job.status == BillingImport.Status.FAILED
    assert "exceed" in job.error


def test_r3_an_import_that_never_finishes_is_failed_after_its_attempts(decision, finance):
    job = create(decision, (HEADER + line("5500.00", "2000", "GPU-Hours")).encode(), finance)
    stale = timezone.now() - timedelta(hours=1)
    # As if three workers died reading it: running, a stale claim, three attempts.
    BillingImport.objects.filter(pk=job.pk).update(
        status=BillingImport.Status.RUNNING, attempts=services.MAX_ATTEMPTS, claimed_at=stale
    )
    billing_import_run_task(job.pk)
    job.refresh_from_db()
    assert job.status == BillingImport.Status.FAILED
    assert f"Stopped after {services.MAX_ATTEMPTS} attempts" in job.error
    assert services.billing_imports_redrive_stuck() == 0  # nothing left to re-drive


def _parquet(table: pa.Table, **kw) -> bytes:
    out = io.BytesIO()
    pq.write_table(table, out, compression="zstd", **kw)
    return out.getvalue()


def _focus_table(rows: int, account: str = "acct-1") -> pa.Table:
    constant = {
        "BillingAccountId": account,
        "BillingCurrency": "USD",
        "BillingPeriodStart": "2026-03-01T00:00:00Z",
        "ChargePeriodStart": "2026-03-05T00:00:00Z",
        "EffectiveCost": "1.00",
        "ServiceProviderName": "Provider A",
        "SkuId": "h100-reserved",
        "ConsumedQuantity": "1",
        "ConsumedUnit": "GPU-Hours",
    }
    return pa.table(
        {
            name: pa.DictionaryArray.from_arrays(
                pa.array([0] * rows, pa.int32()), pa.array([value])
            )
            for name, value in constant.items()
        }
    )


def test_r4_a_tiny_parquet_file_of_millions_of_rows_is_refused_at_upload(decision, finance):
    data = _parquet(_focus_table(reader.MAX_ROWS + 1))
    assert len(data) < 100_000  # a few KB on disk
    with pytest.raises(DomainError) as refused:
        create(decision, data, finance, name="march.parquet")
    assert f"more than {reader.MAX_ROWS:,} rows" in str(refused.value)
    assert not BillingImport.objects.exists()


def test_r4_a_huge_repeated_text_value_is_refused_before_it_is_decoded(decision, finance):
    data = _parquet(_focus_table(50_000, account="x" * 1_000_000))
    job = run(decision, data, finance, name="march.parquet")
    assert job.status == BillingImport.Status.FAILED
    assert "BillingAccountId holds a value of 1,000,000 bytes" in job.error


def test_r4_decoded_size_is_bounded_by_the_metadata(monkeypatch, decision, finance):
    monkeypatch.setattr(reader, "MAX_ROW_GROUP_BYTES", 1_000)
    data = _parquet(_focus_table(10_000).cast(pa.schema(
        [pa.field(n, pa.string()) for n in _focus_table(1).schema.names]
    )), use_dictionary=False)  # fmt: skip
    with pytest.raises(DomainError) as refused:
        create(decision, data, finance, name="march.parquet")
    assert "Row group 1 decodes to" in str(refused.value)


def test_r4_a_csv_bill_stops_at_the_row_limit(monkeypatch, decision, finance):
    monkeypatch.setattr(reader, "MAX_ROWS", 3)
    bill = HEADER + line("1.00", "1", "GPU-Hours") * 4
    job = run(decision, bill.encode(), finance)
    assert job.status == BillingImport.Status.FAILED
    assert "more than 3 rows" in job.error


def test_r4_a_bill_within_the_limits_still_imports(decision, finance):
    job = run(decision, _parquet(_focus_table(1_000)), finance, name="march.parquet")
    assert job.status == BillingImport.Status.DONE
    assert job.rows_total == 1_000


@pytest.mark.parametrize("value", ["1E+30", "1e300", "NaN", "Infinity"])
def test_r3_accepted_output_files_with_absurd_numbers_are_a_400(decision, engineer, client, value):
    client.force_login(engineer)
    url = reverse("finops:actuals-upload", args=[decision.pk])
    body = f"month,accepted_outputs,acceptance_share\n2026-03,{value},0.9\n".encode()
    response = client.post(url, {"kind": "csv", "file": SimpleUploadedFile("c.csv", body)})
    assert response.status_code == 400
    assert "Row 1, column accepted_outputs" in response.content.decode()
    for sample in ("+Inf", "NaN", "1e300"):
        scrape = f'vllm:request_success_total{{finished_reason="stop"}} {sample}\n'.encode()
        response = client.post(
            url,
            {
                "kind": "vllm",
                "month": "2026-03",
                "acceptance_share": "0.9",
                "file": SimpleUploadedFile("metrics.txt", scrape),
            },
        )
        assert response.status_code == 400, sample
        assert "vllm:request_success_total" in response.content.decode()
    assert not ActualOutputs.objects.exists()


@pytest.mark.parametrize(
    ("name", "data"),
    [("x.parquet", b"PAR1" + b"\0" * 64), ("y.parquet", bytes(range(256)) * 100)],
)
def test_an_unreadable_bill_is_refused_without_the_readers_internals(decision, finance, name, data):
    """Informational note 1: the refusal echoed pyarrow's words (thrift, magic bytes)."""
    with pytest.raises(DomainError) as refused:
        create(decision, data, finance, name=name)
    message = str(refused.value)
    assert "could not be read as FOCUS data" in message
    assert "thrift" not in message.lower()
    assert "magic" not in message.lower()
