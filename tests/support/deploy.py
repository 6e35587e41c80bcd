"""Helpers of the tests that run the production shape (DEBUG off) from deploy/.

`collect_static(base)` runs `manage.py deploy --static-only` into `base / "static"` once per
test session (the command skips the one to three minutes of hashing and compression when the
files collected there are already current), for every production-mode server the tests start.

`seed()` writes the little world the deployment test logs into, from a subprocess with the
deployment's own settings (production refuses `seed_demo`):

    python -c "import django; django.setup(); from tests.support.deploy import seed; seed()"

and prints the id of a brief whose default selection holds a handful of eligible quotes.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def collect_static(base: Path) -> Path:
    root = base / "static"
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith("DJANGO_")},
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "DEBUG": "false",
        "SECRET_KEY": "collect-static-only-" + "k" * 40,
        "AUDIT_HMAC_KEY": "collect-static-only-" + "h" * 40,
        "STATIC_ROOT": str(root),
    }
    result = subprocess.run(
        [sys.executable, "manage.py", "deploy", "--static-only", "-v0"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    assert result.returncode == 0, (result.stdout + result.stderr)[-3000:]
    return root


def seed() -> None:
    from accounts import demo
    from tests.comparisons.factories_comparisons import many_quotes, scenario_quotes
    from tests.factories import WorkloadBriefFactory

    lead = demo.load()["lead"]
    brief = WorkloadBriefFactory(title="Deployment check", created_by=lead, e2e_p99_ms=30_000)
    scenario_quotes(lead)
    many_quotes(3, lead, providers=1)
    print(brief.pk)
