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
from core.models import AuditCheckpoint, AuditEvent, AuditKeyedChainStart, keyed_chain_start_mac

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


def keyed_chain_starts_after(event_id: int) -> None:
    """What the migration records on a database whose rows up to `event_id` are version 1."""
    AuditKeyedChainStart.objects.all().delete()
    AuditKeyedChainStart.objects.create(
        last_v1_event_id=event_id, mac=keyed_chain_start_mac(event_id)
    )


def v1_row(prev_hash: str, **columns: object) -> AuditEvent:
    values = {"actor_name": "finance", "action": "old.event", "object_type": "x"}
    row = AuditEvent(**{**values, **columns}, object_id="1", prev_hash=prev_hash, hash_version=1)
    row.row_hash = row.compute_hash()
    row.save()
    return row


def test_rows_hashed_with_the_old_scheme_still_verify_but_cannot_follow_new_ones(finance):
    """M6: version-1 rows (before the change) verify; a row downgraded to version 1 does not."""
    old = v1_row("")
    keyed_chain_starts_after(old.pk)
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


def rewrite_as_version_1(*, tampered_id: int) -> None:
    """What someone with the database but not the key can do: recompute the whole chain with
    the unkeyed version-1 hash, one row changed."""
    prev = ""
    for event in AuditEvent.objects.order_by("id"):
        if event.pk == tampered_id:
            event.object_repr = "tampered"
            event.actor_name = "mallory"
        event.prev_hash, event.hash_version = prev, 1
        row_hash = event.compute_hash()
        tamper(
            event.pk,
            actor_name=event.actor_name,
            object_repr=event.object_repr,
            prev_hash=prev,
            hash_version=1,
            row_hash=row_hash,
        )
        prev = row_hash


def test_a_chain_rewritten_as_unkeyed_rows_is_detected(finance):
    """M6: every row rewritten as version 1 (plain sha256) with one tampered: both the full
    and the incremental check report it; the key cannot be bypassed by downgrading."""
    events = [
        audit_record(actor=finance, action="review.approve", object_type="x", object_id=str(i))
        for i in range(4)
    ]
    assert audit_chain_verify() == []  # a checkpoint now exists, too
    rewrite_as_version_1(tampered_id=events[1].pk)
    assert events[1].pk in audit_chain_verify(full=True)
    assert events[1].pk in audit_chain_verify()


def test_without_the_keyed_chain_start_no_version_1_row_verifies(finance):
    """M6: deleting the recorded start does not turn unkeyed rows back into genuine ones."""
    old = v1_row("")
    keyed_chain_starts_after(old.pk)
    assert audit_chain_verify(full=True) == []
    AuditKeyedChainStart.objects.all().delete()
    assert audit_chain_verify(full=True) == [old.pk]
    AuditKeyedChainStart.objects.create(last_v1_event_id=10**9, mac="0" * 64)  # forged
    assert audit_chain_verify(full=True) == [old.pk]


def delete_events(*event_ids: int) -> None:
    with connection.cursor() as cursor:  # what only the table owner could do
        cursor.execute("SET LOCAL session_replication_role = replica")
        cursor.execute("DELETE FROM procurement_auditevent WHERE id = ANY(%s)", [list(event_ids)])
        cursor.execute("SET LOCAL session_replication_role = DEFAULT")


def test_deleting_the_newest_rows_with_the_checkpointed_one_is_detected(finance):
    """M6: the newest 3 events, the checkpointed one among them, deleted: the checkpoint's
    event is missing, which both checks report (it used to be skipped silently)."""
    events = [
        audit_record(actor=finance, action="quote.created", object_type="x", object_id=str(i))
        for i in range(6)
    ]
    assert audit_chain_verify() == []
    checkpointed = AuditCheckpoint.objects.order_by("-event_id").first()
    assert checkpointed is not None
    assert checkpointed.event_id == events[-1].pk
    delete_events(*(event.pk for event in events[-3:]))
    assert audit_chain_verify() == [events[-1].pk]
    assert audit_chain_verify(full=True) == [events[-1].pk]


def test_a_checkpointed_event_whose_hash_changed_is_reported(finance):
    events = [
        audit_record(actor=finance, action="quote.created", object_type="x", object_id=str(i))
        for i in range(3)
    ]
    assert audit_chain_verify() == []
    tamper(events[-1].pk, row_hash="f" * 64)
    assert events[-1].pk in audit_chain_verify()
    assert events[-1].pk in audit_chain_verify(full=True)


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


def test_m7_the_audit_page_reads_neither_the_whole_trail_nor_its_full_count(
    admin_member, monkeypatch
):
    """M7 at scale: the filter menus come from a skip scan over the indexes (no DISTINCT over
    the trail) and the page counts at most `AuditPaginator.cap` events (a bounded subquery);
    beyond the cap it says "more than". make bench measures it at 1,000,000 events."""
    from django.db import connection as db
    from django.test.utils import CaptureQueriesContext

    from core.audit import AuditPaginator, audit_distinct

    for n in range(8):
        audit_record(actor=admin_member, action=f"bench.{n % 3}", object_type=f"type.{n % 2}")
    expected = sorted(AuditEvent.objects.order_by().values_list("action", flat=True).distinct())
    assert audit_distinct("action") == expected
    assert audit_distinct("object_type") == ["type.0", "type.1"]
    with pytest.raises(ValueError, match="no audit menu"):
        audit_distinct("summary")

    monkeypatch.setattr(AuditPaginator, "cap", 5)
    client = Client()
    client.force_login(admin_member)
    with CaptureQueriesContext(db) as queries:
        page = client.get("/audit/")
    assert page.status_code == 200
    assert "More than 5 events" in page.content.decode()
    sql = [q["sql"].upper() for q in queries.captured_queries]
    assert not [q for q in sql if "DISTINCT" in q]
    counts = [q for q in sql if "COUNT(" in q and "PROCUREMENT_AUDITEVENT" in q]
    assert counts
    assert all("LIMIT 6" in q for q in counts), counts
    few = client.get("/audit/?action=bench.0").content.decode()
    assert "3 events" in few
