"""R11 at scale: a 20,000-candidate comparison on the default SQLite set-up — the list page,
the results page and the API each answer in under 1 s while another user logs in.

The database is built and measured by `bench.large_comparison` in its own process (its
settings are read from the environment at start); this writes its times as figures.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from bench.common import emit, record

ROOT = Path(__file__).resolve().parent.parent
CANDIDATES = 20_000
LIMIT_MS = 1000.0
READS = (
    "list_page",
    "list_api",
    "detail_page_cold",
    "detail_page",
    "detail_page_2",
    "api_cold",
    "api",
    "api_summary",
    "api_etag",
)


def main() -> None:
    env = {k: v for k, v in os.environ.items() if k not in {"DATABASE_URL", "CELERY_BROKER_URL"}}
    out = subprocess.run(
        [sys.executable, "-m", "bench.large_comparison", "--candidates", str(CANDIDATES)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=True,
        timeout=900,
    )
    facts = json.loads(out.stdout.strip().splitlines()[-1])
    results = {}
    for name in READS:
        r = facts[name]
        results[f"web_large_comparison_{name}_ms"] = record(
            r["ms"],
            "ms",
            f"< {LIMIT_MS:.0f} ms at {CANDIDATES:,} candidates on SQLite",
            r["ms"] < LIMIT_MS and r["status"] in (200, 304),
            bytes=r["bytes"],
            queries=r["queries"],
        )
    logins = facts["logins"]
    results["web_large_comparison_login_failures"] = record(
        logins["failed"], "errors", "0 while the large reads run", logins["failed"] == 0,
        logins=logins["count"],
    )  # fmt: skip
    emit(results)


if __name__ == "__main__":
    main()
