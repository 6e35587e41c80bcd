"""Round three, the audit trail (S3 = M6 again): TRUNCATE refused on the events and the
checkpoints, checkpoints append-only, and the head anchored outside the database, so a trail
shortened or emptied by the table owner fails verification."""

from __future__ import annotations

import json

import pytest
from django.core.management import CommandError, call_command
from django.db import DatabaseError, connection, transaction

from core.audit import audit_chain_verify, audit_record
from core.audit_anchor import anchor_latest
from core.models import AuditCheckpoint, AuditEvent

pytestmark = pytest.mark.django_db

EVENTS = "procurement_auditevent"
CHECKPOINTS = "core_auditcheckpoint"


def _sql(statement: str) -> None:
    with connection.cursor() as cursor:
        # The test's own transaction holds deferred foreign-key checks of the rows it wrote;
        # a real owner's session has none, and TRUNCATE / ALTER refuse to run past them.
        cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
        cursor.execute(statement)


def _as_the_owner(statement: str) -> None:
    """What the table owner may do on its own session (the test database allows TRUNCATE
    through a session setting, which this statement's transaction turns off first)."""
    with transaction.atomic():
        _sql("SET LOCAL workbench.audit_truncate = ''")
        _sql(statement)


@pytest.fixture
def anchored(settings, tmp_path):
    settings.AUDIT_ANCHOR_FILE = str(tmp_path / "anchor.log")
    for i in range(12):
        audit_record(actor=None, action="test.event", object_type="x", object_id=str(i))
    assert audit_chain_verify(full=True) == []
    return tmp_path / "anchor.log"


@pytest.mark.parametrize("table", [EVENTS, CHECKPOINTS])
def test_s3_truncate_of_the_trail_is_refused(table):
    """S3 as found: `TRUNCATE procurement_auditevent` and `TRUNCATE core_auditcheckpoint`
    were allowed (no trigger fired)."""
    audit_record(actor=None, action="test.event", object_type="x", object_id="1")
    audit_chain_verify(full=True)
    with pytest.raises(DatabaseError, match="append-only"):
        _as_the_owner(f"TRUNCATE {table} CASCADE")
    assert AuditEvent.objects.exists()
    assert AuditCheckpoint.objects.exists()


def test_s3_checkpoints_cannot_be_deleted_or_changed():
    audit_record(actor=None, action="test.event", object_type="x", object_id="1")
    audit_chain_verify(full=True)
    with pytest.raises(DatabaseError, match="append-only"), transaction.atomic():
        AuditCheckpoint.objects.all().delete()
    with pytest.raises(DatabaseError, match="append-only"), transaction.atomic():
        AuditCheckpoint.objects.update(row_hash="0" * 64)


def test_s3_each_checkpoint_is_anchored_outside_the_database(anchored):
    lines = [json.loads(line) for line in anchored.read_text().splitlines()]
    newest = AuditEvent.objects.order_by("-id").first()
    assert lines[-1]["event_id"] == newest.pk
    assert lines[-1]["row_hash"] == newest.row_hash
    assert lines[-1]["count"] == AuditEvent.objects.count()
    assert anchor_latest() is not None
    # A forged line (no key) is ignored: the genuine anchor still counts.
    forged = {**lines[-1], "event_id": 1, "mac": "0" * 64}
    with anchored.open("a") as handle:
        handle.write(json.dumps(forged) + "\n")
    assert anchor_latest().event_id == newest.pk


def test_s3_a_suffix_deleted_with_its_checkpoints_fails_verification(anchored):
    """S3 as found: delete the newest events together with the checkpoints above them (the
    owner may disable the triggers) and `audit_verify` said "Hash chain verified"."""
    cut = AuditEvent.objects.order_by("-id").values_list("id", flat=True)[3]
    with transaction.atomic():
        _sql(f"ALTER TABLE {EVENTS} DISABLE TRIGGER USER")
        _sql(f"ALTER TABLE {CHECKPOINTS} DISABLE TRIGGER USER")
        _sql(f"DELETE FROM {CHECKPOINTS} WHERE event_id > {int(cut)}")  # noqa: S608
        _sql(f"DELETE FROM {EVENTS} WHERE id > {int(cut)}")  # noqa: S608
        _sql(f"ALTER TABLE {EVENTS} ENABLE TRIGGER USER")
        _sql(f"ALTER TABLE {CHECKPOINTS} ENABLE TRIGGER USER")
    with pytest.raises(CommandError, match="shorter than its external anchor"):
        call_command("audit_verify")
    assert audit_chain_verify() != []  # the page's incremental check sees it too


def test_m6_an_emptied_trail_fails_verification(anchored):
    """M6 / S3 as found: after `TRUNCATE` of events and checkpoints `audit_verify` said
    "Hash chain verified." (0 events)."""
    with transaction.atomic():
        _sql("SET LOCAL workbench.audit_truncate = 'allowed'")  # or DISABLE TRIGGER
        _sql(f"TRUNCATE {EVENTS}, {CHECKPOINTS}")
    with pytest.raises(CommandError, match="the trail is empty"):
        call_command("audit_verify")
