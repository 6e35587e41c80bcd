"""Round three, the lows: S6 (chart text), S7 (huge ids, SQLite), S8 (the worker comes
back), S9 (tokens per user), S10 (no internal text in import outcomes), S11 (a vendor's own
"private endpoint: yes")."""

from __future__ import annotations

import importlib
import json
import os
import shutil
import subprocess
import sys
from decimal import Decimal
from pathlib import Path

import pytest
from django.apps import apps
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import OperationalError
from django.http import HttpResponse
from django.test import Client, RequestFactory
from knox.models import AuthToken
from rest_framework.test import APIClient

from benchmarks.charts import compare_scatter_figure
from checklist.models import ChecklistAnswer, ChecklistItem
from core.db_limits import DatabaseLimitsMiddleware
from core.templatetags.chart_tables import chart_table
from procurement.models import CandidateResult
from procurement.services.comparisons import comparison_create, comparison_run
from tests.comparisons.factories_comparisons import scenario_quotes
from tests.factories import QuoteFactory, WorkloadBriefFactory

pytestmark = pytest.mark.django_db

ROOT = Path(__file__).resolve().parents[2]
PASSWORD = "gpu-demo"


def test_s6_html_in_an_uploaders_text_is_not_drawn_as_a_link():
    """S6 as found: serving_engine `<a href="https://evil.example/l">LOGIN</a>` and
    parallelism `<b>TP8</b>` became a clickable link and bold text in the compare chart. Every
    string a figure carries is escaped now; the chart's table shows the text as typed."""
    label = 'Contoso H100 (<a href="https://evil.example/l">LOGIN</a> <b>TP8</b>) & co'
    figure = compare_scatter_figure(
        [{"label": label, "e2e_p99_ms": 900.0, "tokens_per_s_per_gpu": 1200.0, "result_id": 7,
          "group": "<b>vLLM</b>"}],
        target=1000.0,
    )  # fmt: skip
    drawn = json.dumps(figure)
    assert "<a" not in drawn
    assert "<b>" not in drawn
    assert "&lt;a href" in drawn
    assert "&amp; co" in drawn
    assert "<br>" in figure["data"][0]["hovertemplate"]  # our own markup stays
    assert "<b>vLLM</b>" in str(chart_table(figure))  # the table (escaped by the template)


@pytest.mark.parametrize(
    "url",
    [
        "/api/v1/quotes/?rfq=26084550538764788000",
        "/api/v1/quotes/?rfq=1e19",
        "/api/v1/benchmark-results/?brief=99999999999999999999",
        "/api/v1/comparisons/?brief=99999999999999999999",
        "/benchmarks/?brief=99999999999999999999",
        "/benchmarks/?quote=99999999999999999999",
    ],
)
def test_s7_huge_integers_in_filters_are_never_a_500(url, lead, settings):
    """S7 as found (SQLite): `?rfq=26084550538764788000` and huge brief/quote ids gave a 500
    OverflowError. Id filters are bounded to the 64-bit range (a 400 naming the filter), and
    any integer the database cannot hold is a 400."""
    client = Client(raise_request_exception=False)
    client.force_login(lead)
    response = client.get(url)
    assert response.status_code < 500
    assert response.status_code in (200, 400, 404)


def test_s7_what_sqlite_cannot_do_is_a_400_or_a_503():
    """What SQLite raises for an id past 2**63, and for a write lock another writer still
    holds after the busy timeout: a 400 and a 503 with Retry-After, not a 500."""
    middleware = DatabaseLimitsMiddleware(lambda request: HttpResponse())
    request = RequestFactory().get("/api/v1/quotes/1/")
    too_big = OverflowError("Python int too large to convert to SQLite INTEGER")
    answer = middleware.process_exception(request, too_big)
    assert answer is not None
    assert answer.status_code == 400
    busy = middleware.process_exception(request, OperationalError("database is locked"))
    assert busy is not None
    assert busy.status_code == 503
    assert busy["Retry-After"] == "5"


def test_s7_sqlite_runs_with_wal_a_busy_timeout_and_immediate_transactions(tmp_path):
    """S7: 3 parallel vendor POSTs gave one 500 "database is locked" on SQLite. The
    development database now waits for the writer (timeout) and takes the write lock when a
    transaction begins (IMMEDIATE), with WAL for readers; loaded in a fresh interpreter."""
    code = (
        "from config import settings as s; o = s.DATABASES['default']['OPTIONS']; "
        "print(o['timeout'], o['transaction_mode'], 'WAL' in o['init_command'])"
    )
    loaded = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        env={**os.environ, "DEBUG": "true", "DATABASE_URL": f"sqlite:///{tmp_path / 'db'}"},
        capture_output=True,
        check=True,
        timeout=60,
    )
    assert loaded.stdout.decode().split() == ["20", "IMMEDIATE", "True"]


def test_s8_make_run_restarts_a_worker_that_exits(tmp_path):
    """S8 as found: with the filesystem broker broken the worker (and its beat) exited for
    good and `make run` kept serving the web with no worker. The script now restarts it. The
    real script runs with stand-ins: celery exits at once, runserver waits for its restart."""
    (tmp_path / "scripts").mkdir()
    shutil.copy(ROOT / "scripts" / "run.sh", tmp_path / "scripts" / "run.sh")
    bin_dir = tmp_path / ".venv" / "bin"
    bin_dir.mkdir(parents=True)
    starts = tmp_path / "worker.starts"
    (bin_dir / "celery").write_text(f"#!/usr/bin/env bash\necho start >> {starts}\nexit 1\n")
    (bin_dir / "python").write_text(
        "#!/usr/bin/env bash\n"
        'case "$*" in *runserver*)\n'
        f'  for _ in $(seq 1 100); do [ "$(wc -l < {starts} 2>/dev/null || echo 0)" -ge 2 ]'
        " && exit 0; sleep 0.1; done; exit 3 ;;\n"
        "esac\nexit 0\n"
    )
    for name in ("python", "celery"):
        (bin_dir / name).chmod(0o755)
    done = subprocess.run(
        ["bash", str(tmp_path / "scripts" / "run.sh")],
        env={"PATH": os.environ["PATH"], "HOME": str(tmp_path)},
        capture_output=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr.decode()[-2000:]
    assert starts.read_text().count("start") >= 2
    assert b"restarting it" in done.stderr


def test_s8_the_worker_retries_a_lost_broker_for_ever(settings):
    assert settings.CELERY_BROKER_CONNECTION_RETRY is True
    assert settings.CELERY_BROKER_CONNECTION_MAX_RETRIES is None


def test_s9_a_user_holds_at_most_the_token_limit_the_oldest_revoked(vendor_b, settings):
    """S9 as found: two clients as vendor_b for 8 s made 14 tokens; nothing limited them."""
    settings.API_TOKEN_LIMIT_PER_USER = 3
    client = APIClient(REMOTE_ADDR="203.0.113.90")
    keys = []
    for _ in range(5):
        response = client.post(
            "/api/v1/auth/token/", {"username": "vendor_b", "password": PASSWORD}, format="json"
        )
        assert response.status_code == 200
        keys.append(response.json()["token"])
    assert AuthToken.objects.filter(user=vendor_b).count() == 3
    first = APIClient()
    first.credentials(HTTP_AUTHORIZATION=f"Token {keys[0]}")
    assert first.get("/api/v1/quotes/").status_code == 401  # the oldest went
    last = APIClient()
    last.credentials(HTTP_AUTHORIZATION=f"Token {keys[-1]}")
    assert last.get("/api/v1/quotes/").status_code == 200


def test_s10_an_import_outcome_carries_no_internal_text(lead):
    """S10 as found: a LiteLLM JSON with a 5,000-digit integer → 400 "The file is not valid
    JSON: Exceeds the limit (4300 digits) for integer string conversion … use
    sys.set_int_max_str_digits() …". The outcome names the kind of error only."""
    body = b'{"m": {"litellm_provider": "x", "input_cost_per_token": ' + b"9" * 5000 + b"}}"
    client = APIClient()
    client.force_authenticate(user=lead)
    response = client.post(
        "/api/v1/catalog-imports/",
        {"kind": "litellm", "file": SimpleUploadedFile("prices.json", body)},
        format="multipart",
    )
    assert response.status_code == 400
    text = json.dumps(response.json())
    assert "set_int_max_str_digits" not in text
    assert "4300" not in text
    assert "value this parser cannot read (ValueError)" in text


@pytest.fixture
def items(db):
    if not ChecklistItem.objects.exists():
        migration = importlib.import_module("checklist.migrations.0002_seed_items")
        migration.seed_items(apps, None)
    return list(ChecklistItem.objects.all())


def test_s11_a_vendors_own_private_endpoint_counts_once_a_reviewer_accepted_it(
    items, lead, vendor_a, security
):
    """S11 as found: `private_endpoint = "yes"`, typed by the vendor, alone satisfied a brief
    that requires one, while security had red-flagged its network-boundary item. Now the
    vendor's claim counts only once its network-boundary answer is accepted; procurement's
    own entries count as before."""
    _cheap, fast = scenario_quotes(lead)
    brief = WorkloadBriefFactory(created_by=lead, e2e_p99_ms=30_000, private_endpoint_required=True)
    claimed = QuoteFactory(
        provider=vendor_a.provider,
        accelerator=fast.accelerator,
        price_per_gpu_hour=Decimal("2.4900"),
        region=fast.region,
        private_endpoint="yes",
        entered_by=vendor_a,
    )
    boundary = next(i for i in items if i.code == "network-boundary")
    answer = ChecklistAnswer.objects.create(
        provider=vendor_a.provider,
        item=boundary,
        answer="Private link.",
        status="yes",
        evidence_url="https://northwind.example/boundary.pdf",
        answered_by=vendor_a,
        review_status=ChecklistAnswer.ReviewStatus.RED_FLAG,
    )
    staff_yes = QuoteFactory(
        provider=fast.provider,
        accelerator=fast.accelerator,
        region=fast.region,
        private_endpoint="yes",
        entered_by=lead,
    )

    def rows():
        comparison = comparison_create(
            acting_user=lead, brief=brief, quote_ids=[claimed.pk, staff_yes.pk], seed=1
        ).comparison
        comparison_run(comparison_id=comparison.pk)
        return {r.quote_id: r for r in CandidateResult.objects.filter(comparison=comparison)}

    before = rows()
    assert not before[claimed.pk].eligible
    assert any("no reviewer has accepted" in r for r in before[claimed.pk].reasons)
    assert not any("private endpoint" in r for r in before[staff_yes.pk].reasons)
    ChecklistAnswer.objects.filter(pk=answer.pk).update(
        review_status=ChecklistAnswer.ReviewStatus.ACCEPTED
    )
    after = rows()
    assert not any("private endpoint" in r for r in after[claimed.pk].reasons)
