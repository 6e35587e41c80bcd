"""Where the MLPerf Inference v4.1 results tree is, for the tests that rebuild from it.

``MLPERF=<results root>`` (as for ``make fit-data``), else ``../shared/data/mlperf-inference-v4.1``
beside the repository. A test that needs it is skipped, saying where it looked, only when
neither is there; a named root that is not a folder fails (a typo would otherwise pass).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
BESIDE = ROOT.parent / "shared" / "data" / "mlperf-inference-v4.1"


def mlperf_results_tree() -> Path:
    named = os.environ.get("MLPERF", "").strip()
    if named:
        if not Path(named).is_dir():
            pytest.fail(f"MLPERF={named} is not a folder of MLPerf results")
        return Path(named)
    if not BESIDE.is_dir():
        pytest.skip(
            f"the MLPerf v4.1 results tree is not at {BESIDE}: set MLPERF=<results root> "
            "(the folder holding closed/<submitter>/…) to rebuild from it"
        )
    return BESIDE
