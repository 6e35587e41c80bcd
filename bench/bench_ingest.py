"""Ingest: a 100,000-request vLLM result file and a 1,000,000-row per-request CSV.

Both files are generated here. Each measurement runs in its own subprocess so its peak RSS is
its own: our parser (parse + percentiles) against pandas `read_csv` + `quantile` on the same
CSV, and against `json.load` + numpy percentiles on the same vLLM file, in the same run. The
runs alternate (ours, theirs, ours, ...) and the fastest of each is kept, so a burst of load
from other jobs on a shared machine does not land on one side only.
"""

from __future__ import annotations

import contextlib
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from bench.common import best_of, emit, peak_rss_mb, record

VLLM_REQUESTS = 100_000
CSV_ROWS = 1_000_000


def generate_csv(path: Path, rows: int = CSV_ROWS, seed: int = 1) -> None:
    rng = np.random.default_rng(seed)
    ttft = rng.lognormal(5.5, 0.5, rows)
    itl = rng.lognormal(3.2, 0.3, rows)
    out_tokens = rng.integers(16, 600, rows)
    e2e = ttft + itl * (out_tokens - 1)
    in_tokens = rng.integers(100, 4000, rows)
    ok = rng.random(rows) > 0.01
    accepted = rng.random(rows) > 0.08
    start = 1_764_000_000 + np.arange(rows) * 0.01
    with path.open("w") as fh:
        fh.write("start_time,ttft_ms,itl_ms,e2e_ms,input_tokens,output_tokens,status,accepted\n")
        block = 100_000
        for lo in range(0, rows, block):
            hi = min(rows, lo + block)
            lines = [
                f"{start[i]:.2f},{ttft[i]:.3f},{itl[i]:.3f},{e2e[i]:.3f},{in_tokens[i]},"
                f"{out_tokens[i]},{'ok' if ok[i] else 'error'},{'yes' if accepted[i] else 'no'}\n"
                for i in range(lo, hi)
            ]
            fh.writelines(lines)


def generate_vllm(path: Path, requests: int = VLLM_REQUESTS, seed: int = 2) -> None:
    rng = np.random.default_rng(seed)
    out_lens = rng.integers(8, 64, requests)
    in_lens = rng.integers(100, 2000, requests)
    ttfts = rng.lognormal(-1.5, 0.4, requests)  # seconds, as vLLM stores them
    itls = [np.round(rng.lognormal(-3.5, 0.2, int(n) - 1), 6).tolist() for n in out_lens]
    latencies = ttfts + np.array([sum(x) for x in itls])
    duration = float(requests / 40.0)
    doc = {
        "date": "20261201-120000",
        "backend": "vllm",
        "model_id": "meta-llama/Llama-3.1-8B-Instruct",
        "tokenizer_id": "meta-llama/Llama-3.1-8B-Instruct",
        "num_prompts": requests,
        "request_rate": "inf",
        "max_concurrency": 64,
        "duration": duration,
        "completed": requests,
        "total_input_tokens": int(in_lens.sum()),
        "total_output_tokens": int(out_lens.sum()),
        "request_throughput": requests / duration,
        "output_throughput": float(out_lens.sum()) / duration,
        "total_token_throughput": float(in_lens.sum() + out_lens.sum()) / duration,
        "mean_ttft_ms": float(ttfts.mean() * 1000),
        "median_ttft_ms": float(np.median(ttfts) * 1000),
        "p99_ttft_ms": float(np.percentile(ttfts, 99) * 1000),
        "mean_e2el_ms": float(latencies.mean() * 1000),
        "median_e2el_ms": float(np.median(latencies) * 1000),
        "p99_e2el_ms": float(np.percentile(latencies, 99) * 1000),
        "input_lens": in_lens.tolist(),
        "output_lens": out_lens.tolist(),
        "ttfts": np.round(ttfts, 6).tolist(),
        "itls": itls,
        "generated_texts": [""] * requests,
        "errors": [""] * requests,
    }
    path.write_text(json.dumps(doc))


def child_ours(path: str) -> None:
    from benchmarks.parsers import parse

    before = peak_rss_mb()
    cpu = time.process_time()
    start = time.perf_counter()
    result = parse(Path(path).read_bytes(), Path(path).name)
    elapsed = time.perf_counter() - start
    m = result.metrics
    print(
        json.dumps(
            {
                "s": elapsed,
                "cpu": time.process_time() - cpu,
                "growth": peak_rss_mb() - before,
                "rss": peak_rss_mb(),
                "p99_ttft": m.ttft_ms.p99,
                "format": result.format_id,
            }
        )
    )


def child_pandas(path: str) -> None:
    import pandas as pd

    before = peak_rss_mb()
    cpu = time.process_time()
    start = time.perf_counter()
    df = pd.read_csv(path)
    ok = df[df["status"] == "ok"]  # percentiles over successful requests, as our parser does
    q = ok[["ttft_ms", "itl_ms", "e2e_ms"]].quantile([0.5, 0.95, 0.99])
    elapsed = time.perf_counter() - start
    print(
        json.dumps(
            {
                "s": elapsed,
                "cpu": time.process_time() - cpu,
                "growth": peak_rss_mb() - before,
                "rss": peak_rss_mb(),
                "p99_ttft": float(q.loc[0.99, "ttft_ms"]),
            }
        )
    )


def child_json(path: str) -> None:
    """What a notebook does with a vLLM file: json.load, then numpy percentiles."""
    import itertools

    before = peak_rss_mb()
    cpu = time.process_time()
    start = time.perf_counter()
    with open(path, "rb") as fh:
        doc = json.load(fh)
    ttft = np.asarray(doc["ttfts"], dtype=np.float64) * 1000.0
    itls = doc["itls"]
    counts = np.fromiter(map(len, itls), dtype=np.int64, count=len(itls))
    flat = np.fromiter(itertools.chain.from_iterable(itls), dtype=np.float64, count=counts.sum())
    q = np.percentile(ttft, [50, 95, 99])
    np.percentile(flat * 1000.0, [50, 95, 99])
    elapsed = time.perf_counter() - start
    print(
        json.dumps(
            {
                "s": elapsed,
                "cpu": time.process_time() - cpu,
                "growth": peak_rss_mb() - before,
                "rss": peak_rss_mb(),
                "p99_ttft": q[2],
            }
        )
    )


def run_child(kind: str, path: Path) -> dict[str, float]:
    out = subprocess.run(
        [sys.executable, "-m", "bench.bench_ingest", kind, str(path)],
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def fastest_pair(a: str, b: str, path: Path, repeat: int = 3) -> tuple[dict, dict]:
    runs_a, runs_b = [], []
    for _ in range(repeat):
        runs_a.append(run_child(a, path))
        runs_b.append(run_child(b, path))
    return min(runs_a, key=lambda r: r["s"]), min(runs_b, key=lambda r: r["s"])


# Inputs built to trip a quadratic regex or a deep recursion (the suite checks that each is
# refused cleanly; the time it takes is measured here, against a real file's parse).
HOSTILE = [
    b"[" * 200_000,
    b"[" * 200_000 + b"]" * 200_000,
    b'{"a": ' * 40_000 + b"1" + b"}" * 40_000,  # the nested-object corpus file's shape (L6)
    b"=" * 100_000,
    b"a" + b" " * 50_000 + b"b",
    b"Metric,avg\n" + b"a" + b" " * 50_000 + b"b,1\n",
    b"x [" * 30_000,
    b"(" * 60_000,
    b"utilization.gpu," + b"[" * 50_000,
    b"ttft_ms\n" + b"9" * 100_000 + b"\n",
    b"Serving Benchmark Result" + b"=" * 50_000,
]


def slowest_hostile_cpu_s() -> float:
    from benchmarks.parsers import ParseError, parse

    def refuse(data: bytes) -> None:
        with contextlib.suppress(ParseError):
            parse(data, None)

    return max(best_of(lambda d=data: refuse(d), repeat=2, cpu=True)[0] for data in HOSTILE)


def main() -> None:
    hostile_s = slowest_hostile_cpu_s()
    with tempfile.TemporaryDirectory() as tmp:
        csv_path, vllm_path = Path(tmp) / "requests.csv", Path(tmp) / "vllm.json"
        # Generated in a child: Linux keeps the RSS high-water mark across fork+exec, so the
        # parent must stay small for the children's peak RSS to be their own.
        subprocess.run([sys.executable, "-m", "bench.bench_ingest", "generate", tmp], check=True)
        ours_csv, pandas_csv = fastest_pair("ours", "pandas", csv_path)
        ours_vllm, json_vllm = fastest_pair("ours", "json", vllm_path)
        csv_mb = csv_path.stat().st_size / 1e6
        vllm_mb = vllm_path.stat().st_size / 1e6
    speed_ratio = pandas_csv["s"] / ours_csv["s"]
    vllm_ratio = json_vllm["s"] / ours_vllm["s"]
    mem_ours = ours_csv["growth"]
    mem_pandas = pandas_csv["growth"]
    p99_gap = abs(ours_csv["p99_ttft"] - pandas_csv["p99_ttft"])
    emit(
        {
            "ingest_csv_1m_rows_s": record(
                ours_csv["s"], "s", f"parse+percentiles, {csv_mb:.0f} MB", True
            ),
            "ingest_csv_pandas_s": record(pandas_csv["s"], "s", "pandas read_csv+quantile", True),
            "ingest_csv_speed_vs_pandas": record(
                speed_ratio, "x", ">= 2.0 (pandas time / ours)", speed_ratio >= 2.0
            ),
            "ingest_csv_cpu_speed_vs_pandas": record(
                pandas_csv["cpu"] / ours_csv["cpu"],
                "x",
                "reported (CPU time of the fastest runs: other jobs on the machine do not count)",
                True,
            ),
            "ingest_csv_peak_rss_growth_mb": record(
                mem_ours, "MB", "<= pandas'", mem_ours <= mem_pandas, pandas_mb=round(mem_pandas, 1)
            ),
            "ingest_csv_pandas_peak_rss_growth_mb": record(
                mem_pandas, "MB", "reference for ingest_csv_peak_rss_growth_mb", True
            ),
            "ingest_csv_p99_agrees_with_pandas": record(
                p99_gap, "ms", "< 0.01 ms difference", p99_gap < 0.01
            ),
            "ingest_vllm_100k_requests_s": record(
                ours_vllm["s"],
                "s",
                f"{vllm_mb:.0f} MB file",
                True,
                peak_rss_mb=round(ours_vllm["rss"], 1),
            ),
            "ingest_hostile_slowest_vs_vllm_100k": record(
                hostile_s / ours_vllm["cpu"],
                "x",
                "<= 1.0 (CPU of the slowest hostile input / CPU of a 100k-request vLLM parse)",
                hostile_s <= ours_vllm["cpu"],
            ),
            "ingest_vllm_json_load_s": record(
                json_vllm["s"], "s", "json.load + numpy percentiles", True
            ),
            "ingest_vllm_cpu_speed_vs_json": record(
                json_vllm["cpu"] / ours_vllm["cpu"], "x", "reported (CPU time)", True
            ),
            "ingest_vllm_speed_vs_json": record(
                vllm_ratio, "x", ">= 3.0 (json.load time / ours)", vllm_ratio >= 3.0
            ),
        }
    )


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "generate":
        generate_csv(Path(sys.argv[2]) / "requests.csv")
        generate_vllm(Path(sys.argv[2]) / "vllm.json")
    elif len(sys.argv) == 3 and sys.argv[1] == "ours":
        child_ours(sys.argv[2])
    elif len(sys.argv) == 3 and sys.argv[1] == "pandas":
        child_pandas(sys.argv[2])
    elif len(sys.argv) == 3 and sys.argv[1] == "json":
        child_json(sys.argv[2])
    else:
        main()
