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


def swapped(text: str, swaps: dict[str, str]) -> str:
    """`text` with each marked part replaced; a marked part that moved is an error, not a
    silent no-op (the shipped file changed under the test or the bench)."""
    for old, new in swaps.items():
        if old not in text:
            raise ValueError(f"the marked {old!r} moved out of {text!r}")
        text = text.replace(old, new)
    return text


def unit_lines(unit: str, key: str) -> list[str]:
    """The `key=` lines (ExecStart, ExecStartPre...) of a shipped systemd unit."""
    text = (ROOT / "deploy" / "systemd" / unit).read_text()
    return [line.split("=", 1)[1] for line in text.splitlines() if line.startswith(f"{key}=")]


def nginx_main(prefix: Path, nginx_port: int, web_port: int, connections: int = 512) -> Path:
    """A main nginx.conf for a private master (`nginx -p prefix -c <this>`) around the shipped
    server block, listening on loopback and proxying to a gunicorn on `web_port`."""
    site = swapped(
        (ROOT / "deploy" / "nginx" / "workbench.conf").read_text(),
        {
            "listen 80;  # deploy-test: listen": f"listen 127.0.0.1:{nginx_port};",
            "server web:8000;  # deploy-test: upstream": f"server 127.0.0.1:{web_port};",
        },
    )
    (prefix / "workbench.conf").write_text(site)
    # As root the workers would drop to `nobody`, who cannot write the private temp folders.
    user = "user root;\n" if os.geteuid() == 0 else ""
    main = prefix / "nginx.conf"
    main.write_text(
        f"{user}worker_processes 1;\ndaemon off;\npid {prefix}/nginx.pid;\n"
        f"error_log {prefix}/error.log warn;\n"
        f"events {{ worker_connections {connections}; }}\n"
        "http {\n  access_log off;\n"
        f"  client_body_temp_path {prefix}/body; proxy_temp_path {prefix}/proxy;\n"
        f"  fastcgi_temp_path {prefix}/fcgi; uwsgi_temp_path {prefix}/uwsgi;\n"
        f"  scgi_temp_path {prefix}/scgi;\n"
        f"  include {prefix}/workbench.conf;\n}}\n"
    )
    return main
