"""M6, M7: the audit chain covers every field with a keyed HMAC, old rows still verify, the
page verifies incrementally, and anonymous failed logins are aggregated."""

from __future__ import annotations

import hashlib
import json
from datetime import UTC, datetime

import pytest
from django.db import connection
from django.test import Client

from core.audit import audit_chain_verify, audit_record
from core.models import AuditCheckpoint, AuditEvent

pytestmark = pytest.mark.django_db


def tamper(event_id: int, **columns: object) -> None:
    sets = ", ".join(f"{name} = %s" for name in columns)
    with connection.cursor() as cursor:  # what only the table owner could do
        cursor.execute("SET LOCAL session_replication_role = replica")
        cursor.execute(
            f"UPDATE procurement_auditevent SET {sets} WHERE id = %s",  # noqa: S608
            [*columns.values(), event_id],
        )
        cursor.execute("SET LOCAL session_replication_role = DEFAULT")


@pytest.mark.parametrize(
    "columns",
    [
        {"created_at": datetime(2026, 1, 1, 9, tzinfo=UTC)},
        {"object_repr": "tampered"},
        {"actor_id": None},
    ],
)
def test_the_hash_covers_time_actor_id_and_label(finance, columns):
    """M6: changing the time, the actor id or the object label breaks the chain."""
    event = audit_record(actor=finance, action="review.approve", obj=finance)
    audit_record(actor=finance, action="quote.created", object_type="x", object_id="1")
    assert audit_chain_verify(full=True) == []
    tamper(event.pk, **columns)
    assert event.pk in audit_chain_verify(full=True)


def test_the_hash_is_keyed_so_a_recomputed_sha256_does_not_verify(finance):
    """M6: without the key, rewriting a row and recomputing a plain hash is detected."""
    event = audit_record(actor=finance, action="review.approve", object_type="x", object_id="1")
    payload = json.dumps(
        [
            event.prev_hash,
            "mallory",
            event.action,
            event.object_type,
            event.object_id,
            event.summary,
            event.outcome,
        ],
        sort_keys=True,
        default=str,
    )
    tamper(event.pk, actor_name="mallory", row_hash=hashlib.sha256(payload.encode()).hexdigest())
    assert audit_chain_verify(full=True) == [event.pk]


def test_rows_hashed_with_the_old_scheme_still_verify_but_cannot_follow_new_ones(finance):
    """M6: version-1 rows (before the change) verify; a row downgraded to version 1 does not."""
    old = AuditEvent(
        actor_name="finance",
        action="old.event",
        object_type="x",
        object_id="1",
        prev_hash="",
        hash_version=1,
    )
    old.row_hash = old.compute_hash()
    old.save()
    new = audit_record(actor=finance, action="new.event", object_type="x", object_id="2")
    assert new.hash_version == 2
    assert audit_chain_verify(full=True) == []
    downgraded = AuditEvent(
        actor_name="finance",
        action="forged",
        object_type="x",
        object_id="3",
        prev_hash=new.row_hash,
        hash_version=1,
    )
    downgraded.row_hash = downgraded.compute_hash()
    downgraded.save()
    assert audit_chain_verify(full=True) == [downgraded.pk]


def test_the_audit_page_verifies_only_events_after_the_checkpoint(
    admin_member, finance, django_assert_max_num_queries, monkeypatch
):
    """M7: after one view, the next verifies only the new events (not the whole table)."""
    for i in range(30):
        audit_record(actor=finance, action="quote.created", object_type="x", object_id=str(i))
    client = Client()
    client.force_login(admin_member)
    assert "Hash chain verified" in client.get("/audit/").content.decode()
    assert AuditCheckpoint.objects.exists()
    audit_record(actor=finance, action="quote.revised", object_type="x", object_id="99")
    calls: list[int] = []
    original = AuditEvent.compute_hash

    def counting(self: AuditEvent) -> str:
        calls.append(self.pk)
        return original(self)

    monkeypatch.setattr(AuditEvent, "compute_hash", counting)
    assert "Hash chain verified" in client.get("/audit/").content.decode()
    assert len(calls) <= 2  # the new event(s), not the 30 before


def test_a_forged_checkpoint_is_ignored(finance):
    """M7: a checkpoint without the key's MAC does not skip verification."""
    event = audit_record(actor=finance, action="quote.created", object_type="x", object_id="1")
    audit_record(actor=finance, action="quote.revised", object_type="x", object_id="1")
    tamper(event.pk, action="quote.deleted")
    last = AuditEvent.objects.order_by("-id").first()
    AuditCheckpoint.objects.create(event_id=last.pk, row_hash=last.row_hash, mac="0" * 64)
    assert event.pk in audit_chain_verify()


def test_anonymous_failed_logins_do_not_grow_the_trail_per_attempt(db):
    """M7: 40 failed logins for one username from one address add at most two audit rows."""
    before = AuditEvent.objects.count()
    client = Client(REMOTE_ADDR="192.0.2.44")
    for i in range(40):
        client.post("/accounts/login/", {"username": "ghost", "password": f"w{i}"})
    assert AuditEvent.objects.count() - before <= 2
