"""R11 at scale: a 20,000-candidate comparison on the default SQLite set-up and on
PostgreSQL — the list page, the results page and the API each answer in under 1 s and 2 MB
while another user logs in.

Each database is built and measured by `bench.large_comparison` in its own process (its
settings are read from the environment at start); this writes its times as figures, the
PostgreSQL ones (`web_large_comparison_pg_*`) beside the SQLite ones. PostgreSQL runs in a
throw-away database, `BENCH_LARGE_DATABASE_URL` (default gp_bench_large on the local
server), created and dropped by the run.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from bench.common import emit, record

ROOT = Path(__file__).resolve().parent.parent
CANDIDATES = 20_000
LIMIT_MS = 1000.0
LIMIT_BYTES = 2 * 1000 * 1000
# The printable decision record: under 1 s and 1 MB at 1,000 and at 20,000 candidates.
RECORD_SIZES = (1_000, CANDIDATES)
RECORD_LIMIT_BYTES = 1000 * 1000
RECORD_READS = ("record_page_cold", "record_page")
POSTGRES_URL = os.environ.get(
    "BENCH_LARGE_DATABASE_URL", "postgres://postgres@127.0.0.1:5432/gp_bench_large"
)
READS = (
    "list_page",
    "list_api",
    "detail_page_cold",
    "detail_page",
    "detail_page_2",
    "detail_page_sorted",
    "api_cold",
    "api",
    "api_summary",
    "api_etag",
)


def _measure(*database: str, candidates: int = CANDIDATES) -> dict[str, Any]:
    env = {k: v for k, v in os.environ.items() if k not in {"DATABASE_URL", "CELERY_BROKER_URL"}}
    out = subprocess.run(
        [sys.executable, "-m", "bench.large_comparison", "--candidates", str(candidates),
         *database],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=True,
        timeout=900,
    )  # fmt: skip
    facts: dict[str, Any] = json.loads(out.stdout.strip().splitlines()[-1])
    return facts


def _figures(facts: dict[str, Any], prefix: str, backend: str) -> dict[str, Any]:
    results = {}
    for name in READS:
        r = facts[name]
        results[f"{prefix}_{name}_ms"] = record(
            r["ms"],
            "ms",
            f"< {LIMIT_MS:.0f} ms and < 2 MB at {CANDIDATES:,} candidates on {backend}",
            r["ms"] < LIMIT_MS and r["status"] in (200, 304) and r["bytes"] < LIMIT_BYTES,
            bytes=r["bytes"],
            queries=r["queries"],
        )
    results.update(_record_figures(facts, prefix, backend, CANDIDATES))
    logins = facts["logins"]
    results[f"{prefix}_login_failures"] = record(
        logins["failed"], "errors", f"0 while the large reads run ({backend})",
        logins["failed"] == 0, logins=logins["count"],
    )  # fmt: skip
    return results


def _record_figures(
    facts: dict[str, Any], prefix: str, backend: str, candidates: int
) -> dict[str, Any]:
    return {
        f"{prefix}_{name}_ms": record(
            facts[name]["ms"],
            "ms",
            f"< {LIMIT_MS:.0f} ms and < 1 MB at {candidates:,} candidates on {backend}",
            facts[name]["ms"] < LIMIT_MS
            and facts[name]["status"] == 200
            and facts[name]["bytes"] < RECORD_LIMIT_BYTES,
            bytes=facts[name]["bytes"],
            queries=facts[name]["queries"],
        )
        for name in RECORD_READS
    }


def main() -> None:
    results = _figures(_measure(), "web_large_comparison", "SQLite")
    for size in RECORD_SIZES[:-1]:  # the largest is measured with the other reads
        small = _measure(candidates=size)
        results.update(_record_figures(small, f"web_record_{size}", "SQLite", size))
    try:
        postgres = _measure("--database-url", POSTGRES_URL)
    except subprocess.CalledProcessError as exc:
        # One backend failing must not hide the other's figures.
        sys.stderr.write(exc.stderr[-3000:])
        results["web_large_comparison_pg_error"] = record(
            exc.returncode, "exit", f"runs on PostgreSQL ({POSTGRES_URL})", False
        )
    else:
        results.update(_figures(postgres, "web_large_comparison_pg", "PostgreSQL"))
    emit(results)


if __name__ == "__main__":
    main()
