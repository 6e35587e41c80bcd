"""The pure FinOps modules, without a database: FOCUS files out and in, matching a bill to a
decision, the reconciliation arithmetic and the team's counts."""

from __future__ import annotations

import io
from datetime import UTC, date, datetime
from decimal import Decimal
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from finops.focus import reader
from finops.focus.actuals import (
    ActualsError,
    month_from_scrapes,
    parse_actuals_csv,
    parse_vllm_metrics,
)
from finops.focus.charts import MonthPoint, unit_cost_by_month
from finops.focus.export import DATASETS, CommitmentRow, to_csv, to_parquet
from finops.focus.matching import BillingRowError, MatchRule, summarise
from finops.focus.reconcile import Actual, Forecast, ReconcileError, reconcile
from finops.focus.spec import focus_number
from tests.finops.focus_spec import read_rows, violations

EXAMPLE = Path(__file__).parent / "fixtures" / "contract_commitment_example.csv"
MARCH = (datetime(2026, 3, 1, tzinfo=UTC), datetime(2026, 4, 1, tzinfo=UTC))
HEADER = (
    "BillingAccountId,SubAccountId,BillingCurrency,BillingPeriodStart,ChargePeriodStart,"
    "EffectiveCost,BilledCost,ServiceProviderName,SkuId,ResourceId,Tags,ConsumedQuantity,"
    "ConsumedUnit\n"
)


def row(
    cost: str = "10",
    *,
    provider: str = "Acme GPU",
    sku: str = "h100-res",
    qty: str = "4",
    unit: str = "GPU-Hours",
    currency: str = "USD",
    at: str = "2026-03-02T00:00:00Z",
    account: str = "acct-1",
    tags: str = "",
) -> str:
    tag_cell = '"' + tags.replace('"', '""') + '"' if tags else ""
    return (
        f"{account},,{currency},2026-03-01T00:00:00Z,{at},{cost},{cost},{provider},{sku},"
        f"res-1,{tag_cell},{qty},{unit}\n"
    )


def batches(text: str) -> list[reader.Batch]:
    data = text.encode()
    return list(reader.read_batches(io.BytesIO(data), "bill.csv", len(data)))


RULE = MatchRule(provider_names=frozenset({"acme gpu"}), sku_ids=frozenset({"h100-res"}))


def summary(text: str, rule: MatchRule = RULE, fx: dict[str, Decimal] | None = None):
    return summarise(
        batches(text),
        rule=rule,
        month_start=MARCH[0],
        month_end=MARCH[1],
        base_currency="USD",
        fx=fx or {},
    )


# --- export ----------------------------------------------------------------------------------


def commitment(**over) -> CommitmentRow:
    values = {
        "BillingCurrency": "USD",
        "ContractCommitmentCategory": "Usage",
        "ContractCommitmentCost": Decimal("123456.70"),
        "ContractCommitmentDescription": "=cmd",
        "ContractCommitmentId": "decision-1-q1",
        "ContractCommitmentPeriodEnd": datetime(2027, 1, 5, tzinfo=UTC),
        "ContractCommitmentPeriodStart": datetime(2026, 1, 5, tzinfo=UTC),
        "ContractCommitmentQuantity": Decimal("70080.000"),
        "ContractCommitmentType": "Reserved GPU capacity",
        "ContractCommitmentUnit": "GPU-Hours",
        "ContractId": "decision-1-rev1",
        "ContractPeriodEnd": datetime(2027, 1, 5, tzinfo=UTC),
        "ContractPeriodStart": datetime(2026, 1, 5, tzinfo=UTC),
        "ContractCommitmentPaymentModel": "No Upfront",
        "ServiceProviderName": "Acme GPU",
    }
    values.update(over)
    return CommitmentRow(**values)


def test_the_spec_checker_accepts_the_example_and_refuses_broken_copies():
    columns, rows = read_rows(EXAMPLE.read_bytes())
    assert violations(columns, rows) == []
    assert violations(columns[1:], rows) == ["missing column BillingCurrency"]
    broken = [
        dict(rows[0], ContractCommitmentPeriodEnd="2027-01-01", ContractCommitmentCategory="Other")
    ]
    assert len(violations(columns, broken)) == 2


def test_commitment_csv_has_the_examples_columns_and_formats():
    columns, rows = read_rows(to_csv([commitment()], DATASETS["commitments"]))
    example_columns, _ = read_rows(EXAMPLE.read_bytes())
    assert columns[: len(example_columns)] == example_columns
    assert violations(columns, rows) == []
    assert rows[0]["ContractCommitmentCost"] == "123456.7"
    assert rows[0]["ContractCommitmentPeriodStart"] == "2026-01-05T00:00:00Z"
    assert rows[0]["ContractCommitmentDescription"] == "'=cmd"  # never a spreadsheet formula


def test_commitment_parquet_keeps_decimals_and_utc_times():
    table = pq.read_table(io.BytesIO(to_parquet([commitment()], DATASETS["commitments"])))
    assert table.schema.field("ContractCommitmentCost").type == pa.decimal128(38, 10)
    start = table.schema.field("ContractPeriodStart").type
    assert pa.types.is_timestamp(start)
    assert start.tz == "UTC"
    assert table.column("ContractCommitmentCost")[0].as_py() == Decimal("123456.7")
    assert table.column_names == list(DATASETS["commitments"])


def test_focus_numbers_are_plain_decimals():
    assert focus_number(Decimal("1E+3")) == "1000"
    assert focus_number(Decimal("0.000100")) == "0.0001"
    assert focus_number(None) == ""


# --- reading and matching --------------------------------------------------------------------


def test_a_file_without_focus_columns_is_refused_naming_them():
    with pytest.raises(reader.NotFocus, match="EffectiveCost, ServiceProviderName are missing"):
        batches(
            "BillingAccountId,BillingCurrency,BillingPeriodStart,ChargePeriodStart\n1,USD,x,y\n"
        )


def test_matched_rows_add_up_and_unmatched_rows_are_reported_with_their_reason():
    text = HEADER + row("10") + row("6", unit="GB-Month", qty="3") + row("99", provider="Other")
    text += row("7", sku="a100-od")
    found = summary(text)
    assert (found.rows, found.matched_rows, found.unmatched_rows) == (4, 2, 2)
    assert found.gpu_hours == Decimal(4)
    assert found.gpu_cost == Decimal(10)
    assert found.other_cost == Decimal(6)
    assert found.unmatched_cost == Decimal(106)
    assert found.unmatched_by_reason == {"other provider": 1, "other SKU or resource": 1}
    assert [u.row for u in found.unmatched_sample] == [3, 4]


def test_accounts_or_tags_narrow_the_match():
    rule = MatchRule(provider_names=frozenset({"acme gpu"}), tags=frozenset({("team", "chat")}))
    text = HEADER + row("5", tags='{"team": "chat"}') + row("8", tags='{"team": "search"}')
    found = summary(text, rule)
    assert found.matched_rows == 1
    assert found.unmatched_by_reason == {"other account or tag": 1}
    by_account = MatchRule(
        provider_names=frozenset({"acme gpu"}), account_ids=frozenset({"acct-1"})
    )
    assert summary(text, by_account).matched_rows == 2


def test_instance_hours_count_gpus_per_instance():
    rule = MatchRule(provider_names=frozenset({"acme gpu"}), gpus_per_instance=8)
    assert summary(HEADER + row("98.32", qty="1", unit="Hours"), rule).gpu_hours == Decimal(8)


def test_a_row_of_another_month_stops_the_import_naming_row_and_column():
    with pytest.raises(BillingRowError) as caught:
        summary(HEADER + row("1") + row("1", at="2026-04-01T00:00:00Z"))
    assert (caught.value.row, caught.value.column) == (2, "ChargePeriodStart")
    assert "outside the billing month 2026-03" in str(caught.value)


def test_another_currency_needs_an_fx_rate():
    with pytest.raises(BillingRowError, match="Row 1, column BillingCurrency: EUR has no FX rate"):
        summary(HEADER + row("10", currency="EUR"))
    assert summary(
        HEADER + row("10", currency="EUR"), fx={"EUR": Decimal("1.1")}
    ).gpu_cost == Decimal("11.0")


def test_a_cost_that_is_not_a_number_names_its_row():
    with pytest.raises(BillingRowError, match="Row 1, column EffectiveCost: 'ten' is not a number"):
        summary(HEADER + row("ten"))


def test_parquet_bills_are_read_in_batches(monkeypatch):
    monkeypatch.setattr(reader, "BATCH_ROWS", 2)
    table = pa.table(
        {
            "BillingAccountId": ["a"] * 5,
            "BillingCurrency": ["USD"] * 5,
            "BillingPeriodStart": [MARCH[0]] * 5,
            "ChargePeriodStart": [MARCH[0]] * 5,
            "EffectiveCost": pa.array([Decimal("1.25")] * 5, pa.decimal128(10, 2)),
            "ServiceProviderName": ["Acme GPU"] * 5,
            "SkuId": ["h100-res"] * 5,
        }
    )
    sink = io.BytesIO()
    pq.write_table(table, sink)
    sink.seek(0)
    parts = list(reader.read_batches(sink, "bill.parquet", len(sink.getvalue())))
    assert [len(b.rows) for b in parts] == [2, 2, 1]
    assert parts[-1].read_share == 1
    found = summarise(
        parts, rule=RULE, month_start=MARCH[0], month_end=MARCH[1], base_currency="USD", fx={}
    )
    assert found.other_cost == Decimal("6.25")
    assert found.matched_rows == 5


# --- reconciliation --------------------------------------------------------------------------


FORECAST = Forecast(
    spend=Decimal("10100"),
    accepted_outputs=Decimal("1000000"),
    acceptance=Decimal("0.9"),
    gpu_spend=Decimal("10000"),
    gpu_hours=Decimal("5000"),
    utilisation=Decimal("0.5"),
)


def test_the_forecast_state_reproduces_the_forecast_and_the_drivers_add_up_to_the_gap():
    actual = Actual(
        spend=Decimal("13300"),
        accepted_outputs=Decimal("900000"),
        acceptance=Decimal("0.8"),
        gpu_cost=Decimal("13000"),
        gpu_hours=Decimal("5200"),
    )
    found = reconcile(FORECAST, actual, tolerance=Decimal("0.1"))
    assert found.forecast_unit_cost == Decimal("0.0101")
    assert found.actual_unit_cost.quantize(Decimal("1e-20")) == Decimal("0.01477777777777777778")
    gap = sum((d.per_output for d in found.drivers), Decimal(0))
    assert abs(gap - (found.actual_unit_cost - found.forecast_unit_cost)) < Decimal("1e-30")
    by_name = {d.name: d.per_output for d in found.drivers}
    assert by_name["price"] > 0  # 2.50 an hour billed against 2.00 forecast
    assert found.actual_price == Decimal("2.5")
    assert found.drift
    assert found.cost_ratio > Decimal("1.1")


def test_on_forecast_there_is_no_gap_and_no_drift():
    actual = Actual(
        spend=Decimal("10100"),
        accepted_outputs=Decimal("1000000"),
        acceptance=Decimal("0.9"),
        gpu_cost=Decimal("10000"),
        gpu_hours=Decimal("5000"),
    )
    found = reconcile(FORECAST, actual, tolerance=Decimal("0.1"))
    assert found.cost_ratio == 1
    assert not found.drift
    assert all(abs(d.per_output) < Decimal("1e-30") for d in found.drivers)
    assert found.actual_utilisation == Decimal("0.5")


def test_without_gpu_hours_only_volume_and_other_charges_are_split():
    actual = Actual(
        spend=Decimal("12000"), accepted_outputs=Decimal("1000000"), acceptance=Decimal("0.9")
    )
    found = reconcile(FORECAST, actual, tolerance=Decimal("0.1"))
    assert {d.name for d in found.drivers if d.per_output} == {"other"}
    assert "No GPU-hours" in found.note


def test_no_accepted_outputs_cannot_be_reconciled():
    with pytest.raises(ReconcileError, match="accepted outputs"):
        reconcile(
            FORECAST,
            Actual(spend=Decimal(1), accepted_outputs=Decimal(0), acceptance=Decimal(1)),
            tolerance=Decimal("0.1"),
        )


def test_the_chart_has_one_bar_per_month_and_side():
    fig = unit_cost_by_month(
        [MonthPoint("2026-03", Decimal("0.01"), Decimal("0.013"), True)], "USD"
    )
    assert [t["name"] for t in fig["data"]] == ["Forecast", "Actual"]
    assert fig["data"][1]["y"] == [0.013]


# --- the team's counts -----------------------------------------------------------------------


def test_counts_csv_is_read_or_refused_naming_row_and_column():
    rows = parse_actuals_csv(b"month,accepted_outputs,acceptance_share\n2026-03,900000,0.8\n")
    assert rows[0].month == date(2026, 3, 1)
    assert rows[0].accepted_outputs == 900000
    with pytest.raises(ActualsError, match="Row 2, column acceptance_share"):
        parse_actuals_csv(b"month,accepted_outputs,acceptance_share\n2026-03,1,0.8\n2026-04,1,80\n")
    with pytest.raises(ActualsError, match="lacks the column"):
        parse_actuals_csv(b"month,accepted\n2026-03,1\n")


SCRAPE = b"""# HELP vllm:request_success_total Count of successfully processed requests.
# TYPE vllm:request_success_total counter
vllm:request_success_total{finished_reason="stop",model_name="llama"} 1000.0
vllm:request_success_total{finished_reason="length",model_name="llama"} 250.0
# HELP vllm:generation_tokens_total Number of generation tokens processed.
# TYPE vllm:generation_tokens_total counter
vllm:generation_tokens_total{model_name="llama"} 375000.0
"""


def test_a_vllm_scrape_gives_completed_requests_and_tokens():
    end = parse_vllm_metrics(SCRAPE)
    assert end.request_success == Decimal(1250)
    assert end.generation_tokens == Decimal(375000)
    start = parse_vllm_metrics(SCRAPE.replace(b"} 1000.0", b"} 250.0"))
    month = month_from_scrapes(date(2026, 3, 1), Decimal("0.8"), end, start)
    assert month.completed_outputs == Decimal(750)
    assert month.accepted_outputs == Decimal(600)
    with pytest.raises(ActualsError, match="restarted"):
        month_from_scrapes(date(2026, 3, 1), Decimal("0.8"), start, end)
    with pytest.raises(ActualsError, match="no vllm:request_success_total"):
        parse_vllm_metrics(b"up 1\n")


def test_a_large_csv_is_read_block_by_block_with_its_rows_numbered(monkeypatch):
    monkeypatch.setattr(reader, "CSV_BLOCK_BYTES", 4096)
    text = HEADER + "".join(row("1.5") for _ in range(2000)) + row("x")
    data = text.encode()
    parts = reader.read_batches(io.BytesIO(data), "big.csv", len(data))
    shares: list[float] = []
    with pytest.raises(BillingRowError, match="Row 2001, column EffectiveCost"):
        summarise(
            parts,
            rule=RULE,
            month_start=MARCH[0],
            month_end=MARCH[1],
            base_currency="USD",
            fx={},
            progress=shares.append,
        )
    assert len(shares) > 10  # many blocks, progress after each
    assert shares == sorted(shares)


def test_a_file_that_is_neither_csv_nor_parquet_is_not_focus():
    with pytest.raises(reader.NotFocus, match="could not be read"):
        reader.check_header(io.BytesIO(b"PAR1 not really"), "bill.parquet")
    with pytest.raises(reader.NotFocus, match="could not be read as a FOCUS CSV"):
        list(reader.read_batches(io.BytesIO(HEADER.encode() + b"a,b\n"), "b.csv", 10))
