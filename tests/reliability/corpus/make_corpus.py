"""Writes the malformed-upload corpus next to this file (run once; the files are checked in).

    .venv/bin/python tests/reliability/corpus/make_corpus.py

Each file is broken in one way that real uploads are broken. `manifest.json` says, for each
file, what is wrong with it; the tests hold the messages each endpoint must answer with.
"""

from __future__ import annotations

import json
from pathlib import Path

HERE = Path(__file__).resolve().parent

VLLM = {
    "date": "20250513-045648",
    "backend": "openai",
    "model_id": "meta-llama/Llama-3.1-8B-Instruct",
    "num_prompts": 200,
    "request_rate": 3.6,
    "duration": 57.4,
    "completed": 200,
    "total_input_tokens": 1599800,
    "total_output_tokens": 40000,
    "request_throughput": 3.48,
    "output_throughput": 696.6,
    "total_token_throughput": 28557.1,
    "mean_ttft_ms": 243.5,
    "median_ttft_ms": 244.0,
    "p95_ttft_ms": 257.0,
    "p99_ttft_ms": 261.6,
    "mean_tpot_ms": 16.1,
    "median_tpot_ms": 15.1,
    "p95_tpot_ms": 25.3,
    "p99_tpot_ms": 27.3,
    "mean_itl_ms": 16.1,
    "median_itl_ms": 9.9,
    "p95_itl_ms": 13.4,
    "p99_itl_ms": 216.5,
}
REQUESTS_HEADER = "start_time,ttft_ms,itl_ms,e2e_ms,input_tokens,output_tokens,status,accepted\n"
REQUEST_ROW = "2026-01-15T09:30:0{i}.000Z,{ttft},21.7,{e2e},1024,128,ok,yes\n"
PRICE_HEADER = "provider,accelerator,capacity_model,currency,price_per_gpu_hour,gpus_per_node\n"


def _vllm(**changes: object) -> str:
    return json.dumps({**VLLM, **changes})


def _requests(rows: list[tuple[str, str]]) -> str:
    return REQUESTS_HEADER + "".join(
        REQUEST_ROW.format(i=i, ttft=ttft, e2e=e2e) for i, (ttft, e2e) in enumerate(rows)
    )


def corpus() -> dict[str, tuple[bytes, str]]:
    """file name → (bytes, what is wrong with it)."""
    vllm = _vllm()
    huge = vllm.replace('"mean_ttft_ms": 243.5', '"mean_ttft_ms": 1e400').replace(
        '"completed": 200', '"completed": ' + "9" * 400
    )
    duplicated = vllm.replace('"completed": 200', '"completed": 200, "completed": 150')
    late_latin1 = (
        REQUESTS_HEADER.replace("\n", ",comment\n")
        + "".join(
            REQUEST_ROW.format(i=i % 10, ttft="182.4", e2e="2921.6") for i in range(50)
        ).replace("\n", ",fine\n")
        + "2026-01-15T09:31:00.000Z,182.4,21.7,2921.6,1024,128,ok,yes,caf\xe9\n"
    ).encode("latin-1")
    return {
        "empty.json": (b"", "zero bytes"),
        "empty.csv": (b"", "zero bytes"),
        "whitespace_only.csv": (b"  \n\n \r\n", "only blank lines"),
        "truncated.json": (vllm[:300].encode(), "a vLLM result cut off mid-object"),
        "unknown_format.json": (b'{"hello": "world", "answer": 42}', "valid JSON, no format"),
        "unknown_columns.csv": (b"name,age\nbob,3\nalice,4\n", "valid CSV, no known columns"),
        "nan_latencies.json": (
            _vllm(mean_ttft_ms=float("nan"), p95_ttft_ms=float("nan")).encode(),
            "vLLM result whose TTFT figures are NaN",
        ),
        "negative_latencies.json": (
            _vllm(mean_ttft_ms=-243.5, p95_ttft_ms=-257.0, p99_ttft_ms=-1.0).encode(),
            "vLLM result with negative TTFT",
        ),
        "huge_numbers.json": (huge.encode(), "1e400 (overflows to infinity), a 400-digit count"),
        "nan_latencies.csv": (
            _requests([("NaN", "2921.6"), ("nan", "3034.0"), ("182.4", "NaN")]).encode(),
            "per-request CSV with NaN latencies",
        ),
        "negative_latencies.csv": (
            _requests([("-182.4", "2921.6"), ("201.9", "-3034.0")]).encode(),
            "per-request CSV with negative latencies",
        ),
        "huge_numbers.csv": (
            _requests([("1e400", "2921.6"), ("9" * 400, "3034.0")]).encode(),
            "per-request CSV with numbers past float range",
        ),
        "non_utf8.csv": (
            (
                REQUESTS_HEADER + "2026-01-15T09:30:00Z,182.4,21.7,2921.6,1024,128,ok,caf\xe9\n"
            ).encode("latin-1"),
            "Latin-1 bytes, not UTF-8",
        ),
        "non_utf8_late.csv": (
            late_latin1,
            "UTF-8 for 50 rows, then a Latin-1 byte in a column the parser ignores",
        ),
        "formula_cells.csv": (
            (
                PRICE_HEADER
                + "northwind,h100-sxm-80gb,on_demand,USD,2.99,8\n"
                + "=cmd|' /C calc'!A0,h100-sxm-80gb,on_demand,USD,@SUM(1+1),8\n"
            ).encode(),
            "price list whose cells start with = and @ (spreadsheet formulas)",
        ),
        "formula_requests.csv": (
            _requests([("=1+1", "2921.6"), ("+182.4", "@SUM(A1)")]).encode(),
            "per-request CSV whose cells are formulas",
        ),
        "deeply_nested.json": (b"[" * 100_000 + b"]" * 100_000, "100,000 nested arrays"),
        "deeply_nested_object.json": (
            b'{"a":' * 50_000 + b"1" + b"}" * 50_000,
            "50,000 nested objects",
        ),
        "duplicate_keys.json": (duplicated.encode(), "'completed' given twice, 200 and 150"),
        "json_in.csv": (b'{"hello": "world", "rows": [1, 2, 3]}\n', "a .csv that is JSON"),
        "nul_bytes.csv": (
            _requests([("182.4", "2921.6")]).encode().replace(b"182.4", b"18\x002.4"),
            "a NUL byte inside a cell",
        ),
        "binary.csv": (
            b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)) * 4,
            "PNG bytes named .csv",
        ),
        "utf16_no_bom.csv": (
            _requests([("182.4", "2921.6")]).encode("utf-16-le"),
            "UTF-16 without a BOM (NUL every other byte)",
        ),
    }


def main() -> None:
    manifest = {}
    for name, (data, why) in corpus().items():
        (HERE / name).write_bytes(data)
        manifest[name] = why
    (HERE / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n")


if __name__ == "__main__":
    main()
