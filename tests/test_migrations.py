"""Migrations: a fresh database and a database created by the layout before the floor plan.

Both run as subprocesses against scratch PostgreSQL databases, so the suite's own test
database is untouched. The upgrade keeps every row: the audit trail and the briefs changed
app (state only), their tables did not.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest
from django.conf import settings

ROOT = Path(__file__).resolve().parent.parent
pytestmark = pytest.mark.services


@pytest.fixture
def scratch_db() -> Iterator[str]:
    db = settings.DATABASES["default"]
    admin = f"host={db['HOST']} port={db['PORT']} user={db['USER']} dbname=postgres"
    name = f"gp_migrate_{uuid.uuid4().hex[:10]}"
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    try:
        yield f"postgres://{db['USER']}@{db['HOST']}:{db['PORT']}/{name}"
    finally:
        with psycopg.connect(admin, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def _run(url: str, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "DATABASE_URL": url, "DJANGO_SETTINGS_MODULE": "config.settings_test"}
    return subprocess.run(
        [sys.executable, *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300
    )


def test_a_fresh_database_migrates_and_matches_the_models(scratch_db: str) -> None:
    done = _run(scratch_db, "manage.py", "migrate", "--noinput")
    assert done.returncode == 0, done.stderr
    check = _run(scratch_db, "manage.py", "makemigrations", "--check", "--dry-run")
    assert check.returncode == 0, check.stdout + check.stderr


def test_a_database_from_the_old_layout_migrates_and_keeps_its_rows(scratch_db: str) -> None:
    done = _run(scratch_db, "-m", "tests.support.migrate_upgrade")
    assert done.returncode == 0, done.stderr
    read_back = json.loads(done.stdout.strip().splitlines()[-1])
    assert read_back == {
        "brief_title": "Brief from before",
        "comparison_brief": "Brief from before",
        "brief_comparisons": 1,
        "audit_action": "brief.created",
        "pending": 0,
    }
