"""Our per-request CSV: values, both reader paths, validation, large files."""

from __future__ import annotations

import csv
import io
import math
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
import pytest

from benchmarks.parsers import ParseError, Percentiles, parse
from benchmarks.parsers import _csvread as fc

TEMPLATE = Path(__file__).parents[2] / "benchmarks" / "parsers" / "templates"
HEADER = "start_time,ttft_ms,itl_ms,e2e_ms,input_tokens,output_tokens,status,accepted"


def make_rows(n: int, seed: int = 0, iso: bool = False) -> list[list[str]]:
    rng = np.random.default_rng(seed)
    starts = 1_760_000_000.0 + np.arange(n) * 0.01 + rng.random(n) * 0.001
    ok = rng.random(n) > 0.05
    ttft = rng.gamma(2.0, 80.0, n)
    itl = rng.gamma(4.0, 5.0, n)
    out = rng.integers(1, 700, n)
    e2e = ttft + itl * (out - 1)
    inp = rng.integers(10, 5000, n)
    acc = rng.integers(0, 7, n)
    words = ["yes", "no", "1", "0", "true", "false", ""]
    rows = []
    for i in range(n):
        if iso:
            stamp = (
                datetime.fromtimestamp(float(starts[i]), UTC)
                .isoformat(timespec="microseconds")
                .replace("+00:00", "Z")
            )
        else:
            stamp = f"{starts[i]:.6f}"
        good = bool(ok[i])
        rows.append(
            [
                stamp,
                f"{ttft[i]:.3f}" if good else "",
                f"{itl[i]:.4f}" if good else "",
                f"{e2e[i]:.2f}",
                str(inp[i]),
                str(out[i] if good else 0),
                "ok" if good else "error",
                words[acc[i]],
            ]
        )
    return rows


def to_csv(rows: list[list[str]], header: str = HEADER, newline: str = "\n") -> bytes:
    return (header + newline + "".join(",".join(r) + newline for r in rows)).encode()


def reference(rows: list[list[str]]) -> dict[str, Percentiles]:
    """Independent computation with the csv module and float()."""
    ok = [r for r in rows if r[6] == "ok"]

    def p(values: list[float]) -> Percentiles:
        arr = np.asarray(values)
        a, b, c = np.percentile(arr, [50, 95, 99])
        return Percentiles(float(a), float(b), float(c), float(arr.mean()))

    ttft = [float(r[1]) for r in ok if r[1]]
    e2e = [float(r[3]) for r in ok if r[3]]
    itl = [float(r[2]) for r in ok if r[2]]
    tpot = [(float(r[3]) - float(r[1])) / (int(r[5]) - 1) for r in ok if r[1] and int(r[5]) > 1]
    return {"ttft_ms": p(ttft), "e2e_ms": p(e2e), "itl_ms": p(itl), "tpot_ms": p(tpot)}


def assert_close(a: Percentiles | None, b: Percentiles) -> None:
    assert a is not None
    for attr in ("p50", "p95", "p99", "mean"):
        assert getattr(a, attr) == pytest.approx(getattr(b, attr), rel=1e-9), attr


def test_template_parses() -> None:
    data = (TEMPLATE / "requests_template.csv").read_bytes()
    result = parse(data, "requests_template.csv")
    assert result.format_id == "requests-csv"
    m = result.metrics
    assert m.requests_completed == 4
    assert m.requests_failed == 1
    assert m.accepted_outputs == 3
    assert m.acceptance_rate == pytest.approx(0.75)
    assert m.duration_s == pytest.approx(30.75)
    rows = list(csv.reader(io.StringIO(data.decode())))[1:]
    ok = [r for r in rows if r[6] == "ok"]
    assert_close(
        m.ttft_ms,
        Percentiles(
            *np.percentile([float(r[1]) for r in ok], [50, 95, 99]).tolist(),
            float(np.mean([float(r[1]) for r in ok])),
        ),
    )


def test_run_template_parses() -> None:
    result = parse((TEMPLATE / "run_template.json").read_bytes())
    assert result.format_id == "run-json"
    assert result.metrics.gpus == 64
    assert result.metrics.mfu == pytest.approx(0.41)


@pytest.mark.parametrize("iso", [False, True])
@pytest.mark.parametrize("newline", ["\n", "\r\n"])
def test_values_match_reference(iso: bool, newline: str) -> None:
    rows = make_rows(3000, seed=3, iso=iso)
    result = parse(to_csv(rows, newline=newline), "anything.txt")
    assert result.format_id == "requests-csv"
    ref = reference(rows)
    for name, want in ref.items():
        assert_close(getattr(result.metrics, name), want)
    ok = sum(r[6] == "ok" for r in rows)
    assert result.metrics.requests_completed == ok
    assert result.metrics.requests_failed == len(rows) - ok
    samples = result.per_request
    assert samples is not None
    assert len(samples) == len(rows)
    assert np.array_equal(
        samples.e2e_ms, np.array([float(r[3]) for r in rows])
    )  # exact decoding, bit for bit
    starts = [
        datetime.fromisoformat(r[0].replace("Z", "+00:00")).timestamp() if iso else float(r[0])
        for r in rows
    ]
    assert samples.start_s is not None
    assert np.allclose(samples.start_s, starts, rtol=0, atol=1e-6)
    out_ok = sum(int(r[5]) for r in rows if r[6] == "ok")
    assert result.metrics.output_tokens_total == out_ok
    end = max(s + float(r[3]) / 1000 for s, r in zip(starts, rows, strict=True))
    assert result.metrics.duration_s == pytest.approx(end - min(starts))
    accepted = [r[7] in ("yes", "1", "true") for r in rows if r[6] == "ok"]
    known = [r[7] != "" for r in rows if r[6] == "ok"]
    assert result.metrics.accepted_outputs == sum(accepted)
    assert result.metrics.acceptance_rate == pytest.approx(sum(accepted) / sum(known))


def test_columnar_and_exact_readers_agree(monkeypatch: pytest.MonkeyPatch) -> None:
    """A3: pyarrow's reader and the exact per-cell reader give bit-identical arrays."""
    rows = make_rows(2000, seed=5)
    data = to_csv(rows)
    fast = parse(data)
    quoted = parse(to_csv(rows, header=HEADER.replace("status", '"status"')))
    monkeypatch.setattr(fc, "read_columnar", _refuse)
    slow = parse(data)
    assert fast.metrics == slow.metrics == quoted.metrics
    assert fast.per_request is not None
    assert slow.per_request is not None
    for name in ("ttft_ms", "e2e_ms", "itl_ms", "input_tokens", "output_tokens", "tpot_ms"):
        a = getattr(fast.per_request, name)
        b = getattr(slow.per_request, name)
        assert np.array_equal(a, b, equal_nan=True), name
    assert np.array_equal(fast.per_request.success, slow.per_request.success)


def _refuse(*args: object, **kwargs: object) -> None:
    raise fc._Untrusted


def test_decoder_edge_cases_match_float() -> None:
    cells = [
        "0",
        "7",
        "12345678",
        "123456789",
        "1234567890123456",
        "0.5",
        ".5",
        "5.",
        "123.456",
        "99999999.9",
        "1760000000.123456",
        "0.000001",
        "00012.50",
        "3.14159265",
        "1234567.89012345",
        "10",
        "1.0",
        "42.4242",
    ]
    body = "".join(f"{c},ok\n" for c in cells)
    data = ("e2e_ms,status\n" + body).encode()
    cols = fc.read_columnar(
        data,
        data.index(b"\n") + 1,
        2,
        [fc.Column("v", 0, fc.FLOAT), fc.Column("s", 1, fc.FLAG)],
    )
    assert cols.values["v"].tolist() == [float(c) for c in cells]
    assert cols.values["s"].tolist() == [1] * len(cells)
    exact = fc.read_exact(data, data.index(b"\n") + 1, 2, [fc.Column("v", 0, fc.FLOAT)])
    assert exact.values["v"].tolist() == [float(c) for c in cells]


@pytest.mark.parametrize(
    ("cell", "fragment"),
    [
        ("=1+2", "formula"),
        ("@SUM(A1)", "formula"),
        ("-5", "negative"),
        ("nan", "NaN"),
        ("inf", "NaN/Infinity"),
        ("2e9", "absurdly large"),
        ("12abc", "not a number"),
        ("1,5", "fields"),
    ],
)
def test_bad_numeric_cells_name_row_and_column(cell: str, fragment: str) -> None:
    rows = make_rows(50, seed=2)
    rows[7][1] = cell
    with pytest.raises(ParseError) as info:
        parse(to_csv(rows))
    message = info.value.message
    assert fragment in message
    assert info.value.format_id == "requests-csv"
    if fragment != "fields":
        assert "ttft_ms" in message
    assert "row 9" in message or "line 9" in message


def test_unknown_status_value() -> None:
    rows = make_rows(20)
    rows[4][6] = "maybe"
    with pytest.raises(ParseError) as info:
        parse(to_csv(rows))
    assert "status" in info.value.message
    assert "row 6" in info.value.message


def test_quoted_cells_and_formula_in_text_column_ignored() -> None:
    data = (
        b'ttft_ms,e2e_ms,status,comment\n10.5,100,ok,"=HYPERLINK(""x"")"\n"12.5","120",ok,"a, b"\n'
    )
    result = parse(data)
    assert result.metrics.requests_completed == 2
    assert result.metrics.ttft_ms is not None
    assert result.metrics.ttft_ms.p50 == pytest.approx(11.5)
    assert any("comment" in n for n in result.notes)


def test_itl_ms_list_is_pooled() -> None:
    data = (
        b"ttft_ms,itl_ms_list,e2e_ms,output_tokens,status\n"
        b"100,10;20;30,160,4,ok\n"
        b"110,15,125,2,ok\n"
        b",,5000,0,error\n"
        b"90,40;50,180,3,ok\n"
    )
    result = parse(data)
    m = result.metrics
    gaps = [10, 20, 30, 15, 40, 50]
    a, b, c = np.percentile(gaps, [50, 95, 99])
    assert m.itl_ms == Percentiles(float(a), float(b), float(c), float(np.mean(gaps)))
    assert result.per_request is not None
    assert result.per_request.itl_ms[0] == pytest.approx(20.0)
    assert m.requests_failed == 1


def test_blank_lines_missing_columns_and_bom() -> None:
    data = (
        "\ufeffTTFT_MS, E2E_MS\n10,100\n\n20,200\n30,300"  # no final newline
    ).encode()
    result = parse(data)
    assert result.format_id == "requests-csv"
    assert result.metrics.requests_completed == 3
    assert result.metrics.e2e_ms is not None
    assert result.metrics.e2e_ms.p50 == 200.0
    assert result.metrics.duration_s is None
    assert result.metrics.output_tokens_total is None


def test_iso_offsets_and_naive() -> None:
    data = (
        b"start_time,ttft_ms,e2e_ms\n"
        b"2026-01-15T10:30:00+01:00,10,1000\n"
        b"2026-01-15T09:30:01Z,10,1000\n"
        b"2026-01-15 09:30:02,10,1000\n"
        b"2026-01-15T04:30:03-05:00,10,1000\n"
    )
    result = parse(data)
    assert result.per_request is not None
    starts = result.per_request.start_s
    assert starts is not None
    base = datetime(2026, 1, 15, 9, 30, tzinfo=UTC).timestamp()
    assert starts.tolist() == [base, base + 1, base + 2, base + 3]
    assert result.metrics.duration_s == pytest.approx(4.0)


def test_header_only_and_no_known_columns() -> None:
    with pytest.raises(ParseError) as info:
        parse(b"ttft_ms,e2e_ms\n")
    assert "no data rows" in info.value.message
    with pytest.raises(ParseError) as info:
        parse(b"ttft_ms,ttft_ms\n1,2\n")
    assert "duplicate" in info.value.message


def test_large_file_with_progress() -> None:
    rows = make_rows(120_000, seed=11)
    data = to_csv(rows)
    seen: list[float] = []
    result = parse(data, "big.csv", progress=seen.append)
    assert result.metrics.requests_completed == sum(r[6] == "ok" for r in rows)
    assert len(seen) > 3
    assert seen == sorted(seen)
    assert seen[-1] == 1.0
    ref = reference(rows)
    assert_close(result.metrics.ttft_ms, ref["ttft_ms"])
    assert_close(result.metrics.tpot_ms, ref["tpot_ms"])
    assert not math.isnan(result.metrics.duration_s or math.nan)


@pytest.mark.parametrize("suffix", ["Z", "+02:00", "-05:30", ""])
def test_iso_fixed_layout_lane(suffix: str) -> None:
    base = datetime(2026, 3, 1, 12, 0, tzinfo=UTC).timestamp()
    rows = []
    for i in range(500):
        moment = datetime.fromtimestamp(base + i * 0.123456, UTC)
        if suffix and suffix != "Z":
            sign = 1 if suffix[0] == "+" else -1
            hours, minutes = int(suffix[1:3]), int(suffix[4:6])
            local = moment.timestamp() + sign * (hours * 3600 + minutes * 60)
            text = datetime.fromtimestamp(local, UTC).strftime("%Y-%m-%dT%H:%M:%S.%f") + suffix
        else:
            text = moment.strftime("%Y-%m-%dT%H:%M:%S.%f") + suffix
        rows.append(f"{text},{10 + i % 7}.5,{100 + i}")
    data = ("start_time,ttft_ms,e2e_ms\n" + "\n".join(rows) + "\n").encode()
    result = parse(data)
    assert result.per_request is not None
    starts = result.per_request.start_s
    assert starts is not None
    expected = [base + i * 0.123456 for i in range(500)]
    assert np.allclose(starts, expected, rtol=0, atol=2e-6)


def test_iso_bad_calendar_value_is_reported() -> None:
    rows = [f"2026-01-01T00:00:{i:02d}Z,1,2" for i in range(50)]
    rows[20] = "2026-02-30T00:00:20Z,1,2"
    data = ("start_time,ttft_ms,e2e_ms\n" + "\n".join(rows) + "\n").encode()
    with pytest.raises(ParseError) as info:
        parse(data)
    assert "start_time" in info.value.message
    assert "row 22" in info.value.message


@pytest.fixture
def small_blocks(monkeypatch: pytest.MonkeyPatch) -> None:
    """Stream a small file in many blocks."""
    monkeypatch.setattr(fc, "BLOCK_BYTES", 16 * 1024)


def test_streamed_blocks_match_single_block(
    small_blocks: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    rows = make_rows(8000, seed=21)
    lines = [",".join(r) for r in rows]
    lines.insert(3000, "")  # blank lines leave gaps that must be compacted
    lines.insert(6000, "")
    data = (HEADER + "\n" + "\n".join(lines) + "\n").encode()
    assert len(data) > 4 * 64 * 1024
    seen: list[float] = []
    threaded = parse(data, progress=seen.append)
    assert seen == sorted(seen)
    assert seen[-1] == 1.0
    monkeypatch.setattr(fc, "BLOCK_BYTES", 1 << 24)
    single = parse(data)
    assert threaded.metrics == single.metrics
    assert threaded.per_request is not None
    assert single.per_request is not None
    for name in ("ttft_ms", "e2e_ms", "itl_ms", "input_tokens", "output_tokens", "start_s"):
        assert np.array_equal(
            getattr(threaded.per_request, name), getattr(single.per_request, name), equal_nan=True
        )
    assert len(threaded.per_request) == len(rows)
    ref = reference(rows)
    assert_close(threaded.metrics.ttft_ms, ref["ttft_ms"])


def test_streamed_first_error_in_file_order(small_blocks: None) -> None:
    rows = make_rows(8000, seed=22)
    rows[7000][1] = "late-bad"
    rows[2500][3] = "early-bad"
    with pytest.raises(ParseError) as info:
        parse(to_csv(rows))
    assert "early-bad" in info.value.message
    assert "row 2502" in info.value.message


def test_streamed_progress_cancel(small_blocks: None) -> None:
    class Cancelled(Exception):
        pass

    def cancel(fraction: float) -> None:
        if fraction > 0.3:
            raise Cancelled

    with pytest.raises(Cancelled):
        parse(to_csv(make_rows(8000, seed=23)), progress=cancel)


def test_more_rows_than_the_first_lines_suggest(monkeypatch: pytest.MonkeyPatch) -> None:
    """Rows are preallocated from the first lines' length; a file that gets denser grows."""
    long_rows = [f"{10 + i % 5},{100 + i},ok,{'x' * 400}" for i in range(1000)]
    short_rows = [f"{20 + i % 3},{200 + i},ok," for i in range(20000)]
    data = ("ttft_ms,e2e_ms,status,comment\n" + "\n".join(long_rows + short_rows) + "\n").encode()
    result = parse(data)
    assert result.metrics.requests_completed == 21000
    monkeypatch.setattr(fc, "read_columnar", _refuse)
    exact = parse(data)
    assert result.per_request is not None
    assert exact.per_request is not None
    assert np.array_equal(result.per_request.e2e_ms, exact.per_request.e2e_ms)
