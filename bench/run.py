"""make bench: run every benchmark in its own process, print a table, write .bench/latest.json.

Figures that depend on the machine are paired with ratios measured in the same run (engine vs
the pure-Python loop, our CSV ingest vs pandas), so the verdict does not depend on how busy
the box is.
"""

from __future__ import annotations

import json
import os
import platform
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BENCHES = [
    "bench.bench_engine",
    "bench.bench_deployments",
    "bench.bench_ingest",
    "bench.bench_web",
    "bench.bench_large_comparison",
    "bench.bench_e2e",
    "bench.bench_load",
    "bench.bench_audit",
    "bench.bench_plan",
    "bench.bench_trace",
    "bench.bench_tenx",
]


def run(module: str) -> dict:
    env = {**os.environ, "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1"}
    start = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-m", module],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=1800,
    )
    elapsed = time.perf_counter() - start
    lines = [ln for ln in proc.stdout.strip().splitlines() if ln.startswith("{")]
    if proc.returncode != 0 or not lines:
        sys.stderr.write(proc.stdout[-3000:] + proc.stderr[-3000:])
        return {
            f"{module.rsplit('.', 1)[-1]}_error": {
                "value": proc.returncode,
                "unit": "exit",
                "target": "runs",
                "ok": False,
            }
        }
    print(f"  {module} done in {elapsed:.0f} s", flush=True)
    return json.loads(lines[-1])


def main() -> int:
    only = sys.argv[1:]
    results: dict = {}
    for module in BENCHES:
        if only and not any(name in module for name in only):
            continue
        results.update(run(module))
    out_dir = ROOT / ".bench"
    out_dir.mkdir(exist_ok=True)
    (out_dir / "latest.json").write_text(json.dumps(results, indent=2) + "\n")
    meta = {
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "cpus": os.cpu_count(),
        "python": platform.python_version(),
        "load": os.getloadavg(),
    }
    (out_dir / "environment.json").write_text(json.dumps(meta, indent=2) + "\n")
    width = max(len(k) for k in results) if results else 10
    print(f"\n{'benchmark':<{width}}  {'value':>12}  {'unit':<8}  ok   {'ratio':>7}  target")
    for name, r in results.items():
        ratio = f"{r['ratio']:.2f}x" if isinstance(r.get("ratio"), int | float) else ""
        print(
            f"{name:<{width}}  {r['value']:>12}  {r['unit']:<8}  {'yes' if r['ok'] else 'NO ':<4} "
            f"{ratio:>7}  {r['target']}"
        )
    print("(ratio: measured against its target, >= 1.00x is met)")
    print(
        f"\nwritten to .bench/latest.json ({meta['date']}, {meta['cpus']} CPUs, "
        f"load {meta['load'][0]:.1f})"
    )
    return 0 if all(r["ok"] for r in results.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
