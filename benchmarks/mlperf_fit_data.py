"""The estimator's fit data: published MLPerf Inference LLM results joined with catalog specs.

`python -m benchmarks.mlperf_fit_data <results root> [out.csv]` reads a results tree with the
pure reader, identifies each system's accelerator in the catalog (refusing unknown ones), and
writes one row per VALID LLM result with the figures the fit needs, each with its source path.
The shipped file is ``engine/fitted/data/mlperf-inference-v4.1.csv``; `make fit-data` rebuilds
it from ``MLPERF=<root>``. No Django: the catalog is read from its seed JSON files.
"""

from __future__ import annotations

import csv
import io
import json
import sys
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from benchmarks.parsers.mlperf_results import MLPerfResult, read_results_tree, serving_software
from catalog.importers.mlperf_names import catalog_accelerator_for
from engine.fitted.cases import CSV_COLUMNS

ROOT = Path(__file__).resolve().parents[1]
CATALOG = ROOT / "catalog" / "data"
# The catalog profile each MLPerf LLM benchmark runs (SDXL is no decoder LLM: not fitted).
MODEL_PROFILES = {
    "llama2-70b": "llama-2-70b",
    "gptj-6b": "gpt-j-6b",
    "mixtral-8x7b": "mixtral-8x7b",
}
# Mean prompt tokens: not in the results (E12), so assumed and stated (docs/engine/accuracy.md):
# Llama 2 70B OpenOrca ~300 (findings E12), Mixtral's OpenOrca + GSM8K (few-shot) + MBXP mix
# ~500, GPT-J's CNN/DailyMail articles ~800.
ASSUMED_INPUT_TOKENS = {"llama-2-70b": 300, "mixtral-8x7b": 500, "gpt-j-6b": 800}
# MLPerf's GPT-J reference generates with beam search, 4 beams (greedy for the others).
BEAMS = {"gpt-j-6b": 4}


def _link(result: MLPerfResult, accelerator: Mapping[str, Any]) -> tuple[str, float]:
    """How the replica's GPUs talk: the systems JSON's words, else the catalog's."""
    words = result.accelerator_interconnect.lower()
    if "nvlink" in words or "xgmi" in words or "infinity" in words:
        kind = "nvlink"
    elif "pcie" in words:
        kind = "pcie"
    else:
        kind = "pcie" if float(accelerator.get("interconnect_gbps") or 0) <= 128 else "nvlink"
    catalog_gbps = float(accelerator.get("interconnect_gbps") or 0)
    pcie_gbps = 64.0 if int(accelerator.get("pcie_gen") or 4) <= 4 else 128.0
    if kind == "pcie":
        return kind, pcie_gbps
    return kind, catalog_gbps if catalog_gbps > 128 else 900.0


def rows_for(
    results: Iterable[MLPerfResult],
    accelerators: list[dict[str, Any]],
    profiles: Mapping[str, Mapping[str, Any]],
) -> tuple[list[dict[str, object]], list[tuple[str, str]]]:
    """(CSV rows, (source path, why not) for results left out)."""
    by_slug = {str(a["slug"]): a for a in accelerators}
    rows: list[dict[str, object]] = []
    left_out: list[tuple[str, str]] = []
    for r in results:
        profile_slug = MODEL_PROFILES.get(r.model)
        if profile_slug is None or profile_slug not in profiles:
            left_out.append((r.source_path, f"{r.model} is not a decoder LLM the roofline models"))
            continue
        match = catalog_accelerator_for(r.accelerator_name, accelerators)
        if match.slug is None:
            left_out.append((r.source_path, match.reason))
            continue
        acc, model = by_slug[match.slug], profiles[profile_slug]
        if r.tokens_per_s is None or not r.samples_per_s:
            left_out.append((r.source_path, "no tokens per second in the summary"))
            continue
        kind, gbps = _link(r, acc)
        limits = r.limits
        rows.append(
            {
                "round": r.round,
                "submitter": r.submitter,
                "system": r.system,
                "benchmark": r.benchmark,
                "model": profile_slug,
                "scenario": r.scenario,
                "accelerator": match.slug,
                "accelerator_name": r.accelerator_name,
                "architecture": acc["architecture"],
                "software": serving_software(r.framework, r.software) or "other",
                "framework": r.framework,
                "gpus": r.gpus,
                "link_kind": kind,
                "link_gbps": gbps,
                "memory_gib": acc["memory_gb"],
                "bandwidth_tbps": acc["memory_bandwidth_tbps"],
                "bf16_tflops": acc["bf16_dense_tflops"],
                "fp8_tflops": acc["fp8_dense_tflops"] or "",
                "fp4_tflops": acc["fp4_dense_tflops"] or "",
                "tdp_w": acc["tdp_w"],
                "params_b": model["params_total_b"],
                "active_params_b": model["params_active_b"],
                "layers": model["layers"],
                "hidden_size": model["hidden_size"],
                "kv_heads": model["kv_heads"],
                "head_dim": model["head_dim"],
                "input_tokens": ASSUMED_INPUT_TOKENS[profile_slug],
                "output_tokens": round(r.tokens_per_s / r.samples_per_s, 2),
                "beams": BEAMS.get(profile_slug, 1),
                "tpot_limit_ms": limits.tpot_ms or "",
                "latency_limit_ms": limits.latency_ms or "",
                "tokens_per_s": r.tokens_per_s,
                "tokens_per_gpu_s": round(r.tokens_per_s / r.gpus, 3),
                "source_path": r.source_path,
            }
        )
    return rows, left_out


def write_csv(rows: list[dict[str, object]]) -> str:
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=CSV_COLUMNS, lineterminator="\n")
    writer.writeheader()
    for row in sorted(rows, key=lambda r: str(r["source_path"])):
        writer.writerow(row)
    return out.getvalue()


def main(argv: list[str]) -> int:
    if not argv:
        print("usage: python -m benchmarks.mlperf_fit_data <results root> [out.csv]")
        return 2
    results = read_results_tree(argv[0])
    accelerators = json.loads((CATALOG / "accelerators.json").read_text())
    profiles = {p["slug"]: p for p in json.loads((CATALOG / "model_profiles.json").read_text())}
    rows, left_out = rows_for(results.results, accelerators, profiles)
    text = write_csv(rows)
    if len(argv) > 1:
        Path(argv[1]).write_text(text)
    else:
        sys.stdout.write(text)
    for path, why in [(s.source_path, s.reason) for s in results.skipped] + left_out:
        print(f"left out {path}: {why}", file=sys.stderr)
    print(f"{len(rows)} rows; {len(results.skipped) + len(left_out)} left out", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
