"""Security round 4, R7 (S3 and M6 not fully held) and R8.

R7: the shipped configuration had no AUDIT_ANCHOR_FILE, so the table owner could delete the
newest events and verification passed; with an anchor, emptying the file did the same. Now
production without an anchor fails `audit_verify` and `check --deploy`; `make run` and the
compose file write one; an emptied file, or one whose newest line is older than its schedule
allows (the heartbeat), fails verification, and the periodic check never re-anchors a
shortened trail. R8: beat runs as its own supervised process, never inside a worker."""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path

import pytest
from django.conf import settings as django_settings
from django.core.management import CommandError, call_command
from django.utils import timezone

from core import audit_anchor
from core.audit import audit_chain_verify, audit_record
from core.checks import audit_anchor_configured
from core.tasks import audit_anchor_task

pytestmark = pytest.mark.django_db
ROOT = Path(django_settings.BASE_DIR)


@pytest.fixture
def anchored(settings, tmp_path):
    settings.AUDIT_ANCHOR_FILE = str(tmp_path / "anchor.jsonl")
    for i in range(5):
        audit_record(actor=None, action="test.event", object_type="x", object_id=str(i))
    assert audit_chain_verify(full=True) == []
    return tmp_path / "anchor.jsonl"


@pytest.fixture
def later(monkeypatch):
    """Move the clock forward by `minutes`."""

    def _move(minutes: float) -> None:
        moved = timezone.now() + timedelta(minutes=minutes)
        monkeypatch.setattr(timezone, "now", lambda: moved)

    return _move


def test_r7_production_without_an_anchor_fails_verification_and_the_deploy_check(settings):
    settings.DEBUG = False
    settings.AUDIT_ANCHOR_FILE = ""
    audit_record(actor=None, action="test.event", object_type="x", object_id="1")
    with pytest.raises(CommandError, match="No external audit anchor is configured"):
        call_command("audit_verify")
    assert [e.id for e in audit_anchor_configured()] == ["core.E001"]
    settings.AUDIT_ANCHOR_FILE = "/var/anchor/audit.jsonl"
    assert audit_anchor_configured() == []


def test_r7_an_emptied_anchor_file_fails_and_is_not_anchored_anew(anchored, later):
    anchored.write_text("")  # `: > anchor.jsonl`
    later(30)  # the trail's events are now older than the schedule allows (2 x 10 + 5 min)
    with pytest.raises(CommandError, match="holds no signed line"):
        call_command("audit_verify")
    assert audit_anchor_task() > 0  # the worker's periodic check fails too ...
    assert anchored.read_text() == ""  # ... and anchors nothing over the gap
    # The next move: replace the file by garbage or a forged line; still no genuine line.
    anchored.write_text(json.dumps({"event_id": 1, "row_hash": "0", "count": 1, "mac": "x"}))
    with pytest.raises(CommandError, match="holds no signed line"):
        call_command("audit_verify")


def test_r7_a_deliberately_new_anchor_file_is_started_and_audited(anchored, later):
    anchored.write_text("")
    later(30)
    call_command("audit_verify", "--start-anchor")
    assert audit_anchor.anchor_latest() is not None
    call_command("audit_verify")  # verified again, on the new file


def test_r7_a_stale_anchor_fails_and_the_worker_writes_a_heartbeat(anchored, later):
    lines = len(anchored.read_text().splitlines())
    later(11)  # a period later, no new event: the worker still writes a line
    assert audit_anchor_task() == 0
    assert len(anchored.read_text().splitlines()) == lines + 1
    call_command("audit_verify")
    later(11 + 26)  # 26 minutes of silence: over 2 x 10 + 5
    with pytest.raises(CommandError, match="anchoring stopped, or the file lost its newest"):
        call_command("audit_verify")


def test_r7_make_run_and_compose_write_an_anchor():
    assert "AUDIT_ANCHOR_FILE" in (ROOT / "scripts" / "run.sh").read_text()
    compose = (ROOT / "docker-compose.yml").read_text()
    assert "AUDIT_ANCHOR_FILE:" in compose
    assert "audit-anchor:/app/var/anchor" in compose


def test_r8_beat_is_its_own_supervised_process_never_embedded_in_a_worker():
    run = (ROOT / "scripts" / "run.sh").read_text()
    assert " -B" not in run
    assert "supervise beat .venv/bin/celery -A config beat" in run
    compose = (ROOT / "docker-compose.yml").read_text()
    assert " -B" not in compose
    assert '"beat"' in compose
