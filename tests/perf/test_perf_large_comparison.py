"""R11 acceptance: a 20,000-candidate comparison on the default SQLite set-up.

`bench.large_comparison` builds it in a fresh SQLite database in its own process (settings
come from the environment) and asks for the list page, the results page and the API while
another thread logs in. Only structural facts are asserted here; the times are figures of
`make bench` (bench/bench_large_comparison.py: web_large_comparison_*_ms).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
TWO_MB = 2 * 1000 * 1000


@pytest.fixture(scope="module")
def large() -> dict:
    env = {k: v for k, v in os.environ.items() if k not in {"DATABASE_URL", "CELERY_BROKER_URL"}}
    out = subprocess.run(
        [sys.executable, "-m", "bench.large_comparison", "--candidates", "20000"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert out.returncode == 0, out.stderr[-3000:]
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_large_comparison_is_on_the_default_sqlite_setup(large):
    assert large["candidates"] == 20_000
    assert large["journal_mode"] == "delete"  # nothing tuned
    assert large["snapshot_mb"] > 25


@pytest.mark.parametrize(
    "name",
    ["list_page", "list_api", "detail_page_cold", "detail_page", "detail_page_2", "api_cold",
     "api", "api_summary"],
)  # fmt: skip
def test_every_read_is_bounded_and_never_loads_the_snapshot(large, name):
    """R11: 200, under 2 MB, a bounded number of queries, the snapshot never read whole."""
    figures = large[name]
    assert figures["status"] == 200
    assert figures["bytes"] < TWO_MB
    assert figures["queries"] <= 10
    assert figures["snapshot_loaded"] is False


def test_results_page_and_api_are_paginated(large):
    assert large["detail_page"]["candidate_rows"] == 50
    assert large["detail_page_2"]["candidate_rows"] == 50
    assert large["api"]["api_candidates"] == 500
    assert large["api_summary"]["bytes"] < large["api"]["bytes"]
    assert large["api_etag"]["status"] == 304


def test_logins_keep_working_meanwhile(large):
    """R11: no "database is locked" for the users logging in during the large reads."""
    assert large["logins"]["count"] >= 1
    assert large["logins"]["failed"] == 0
