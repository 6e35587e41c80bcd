"""The audit trail's head, anchored outside the database (S3, M6).

Whoever owns the tables can delete the newest events with the checkpoints above them, or
empty the trail, without the key; nothing inside the database can tell. So each checkpoint
is also written as a signed line to a file outside it (``AUDIT_ANCHOR_FILE``, appended by the
worker's periodic verification and by `audit_verify`; ship it to a log store or WORM storage):

    {"event_id": 1234, "row_hash": "…", "count": 1234, "at": "2026-12-04T18:00:00+00:00",
     "mac": HMAC(AUDIT_HMAC_KEY, "anchor:<event_id>:<row_hash>:<count>:<at>")}

`count` is how many events had an id up to `event_id`. Verification reads the newest line
whose MAC is right: when that event is gone, its hash changed, or fewer events lead up to it,
the trail was shortened (an emptied trail included) and verification fails. A line without
the right MAC is ignored (it needs the key that the database does not hold).

Round 4 (R7): the anchor is on by default and its own loss is noticed. With DEBUG off and no
file, verification fails (and `check --deploy`). The worker writes a line every
AUDIT_ANCHOR_EVERY_MINUTES even when no event came (a heartbeat), so a full verification
fails when the newest genuine line is older than twice that (plus grace: anchoring stopped,
or the newest lines were cut), and when the file holds no genuine line although the trail has
events older than that (the file was emptied or replaced). The periodic check then refuses
to anchor the trail anew; `audit_verify --start-anchor` starts a new file deliberately.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
from dataclasses import asdict, dataclass
from datetime import datetime, timedelta
from pathlib import Path

from django.conf import settings
from django.utils import timezone

from core.models import AuditEvent

TAIL_BYTES = 64 * 1024  # the newest lines are at the end; a line is about 200 bytes
GRACE = timedelta(minutes=5)


@dataclass(frozen=True, slots=True)
class Anchor:
    event_id: int
    row_hash: str
    count: int
    at: str

    def mac(self) -> str:
        message = f"anchor:{self.event_id}:{self.row_hash}:{self.count}:{self.at}".encode()
        return hmac.new(settings.AUDIT_HMAC_KEY.encode(), message, hashlib.sha256).hexdigest()


def anchor_path() -> Path | None:
    value = str(getattr(settings, "AUDIT_ANCHOR_FILE", "") or "")
    return Path(value) if value else None


def anchor_append(*, event_id: int, row_hash: str) -> Anchor | None:
    """Append a signed line for the verified event `event_id`; None when no file is set."""
    path = anchor_path()
    if path is None:
        return None
    count = AuditEvent.objects.filter(id__lte=event_id).count()
    anchor = Anchor(event_id, row_hash, count, timezone.now().isoformat())
    line = json.dumps({**asdict(anchor), "mac": anchor.mac()})
    path.parent.mkdir(parents=True, exist_ok=True)
    # O_APPEND: each line lands at the end even with two writers; one write per line.
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o640)
    try:
        os.write(fd, (line + "\n").encode())
    finally:
        os.close(fd)
    return anchor


def anchor_latest() -> Anchor | None:
    """The newest line with the right MAC, or None (no file, no line, or none genuine)."""
    path = anchor_path()
    if path is None or not path.exists():
        return None
    with path.open("rb") as handle:
        handle.seek(0, os.SEEK_END)
        size = handle.tell()
        handle.seek(max(0, size - TAIL_BYTES))
        tail = handle.read().decode("utf-8", errors="replace")
    for raw in reversed(tail.splitlines()):
        try:
            data = json.loads(raw)
            anchor = Anchor(
                int(data["event_id"]), str(data["row_hash"]), int(data["count"]), str(data["at"])
            )
        except (ValueError, KeyError, TypeError):
            continue  # a partial first line of the tail, or garbage
        if hmac.compare_digest(str(data.get("mac", "")), anchor.mac()):
            return anchor
    return None


def anchor_period() -> timedelta:
    return timedelta(minutes=int(getattr(settings, "AUDIT_ANCHOR_EVERY_MINUTES", 10)))


def allowed_lag() -> timedelta:
    return 2 * anchor_period() + GRACE


def unanchored_problem(anchor: Anchor | None) -> str | None:
    """Why the anchor itself cannot be trusted: none configured in production, or a file with
    no genuine line under a trail older than the schedule allows; None otherwise."""
    if anchor_path() is None:
        if settings.DEBUG:
            return None
        return (
            "No external audit anchor is configured (AUDIT_ANCHOR_FILE): whoever owns the "
            "tables could shorten the trail unnoticed. Set it (docs/deployment.md)."
        )
    if anchor is not None:
        return None
    oldest = AuditEvent.objects.order_by("id").values_list("created_at", flat=True).first()
    if oldest is None or oldest > timezone.now() - allowed_lag():
        return None  # a new trail: its first line is not due yet
    return (
        f"The audit anchor file {anchor_path()} holds no signed line, but the trail has events "
        f"since {oldest:%Y-%m-%d %H:%M} UTC that should have been anchored: the file was "
        "emptied or replaced. Restore it from its shipped copy (or start a new one on purpose "
        "with audit_verify --start-anchor)."
    )


def stale_problem(anchor: Anchor) -> str | None:
    """The newest genuine line is older than the heartbeat allows."""
    try:
        at = datetime.fromisoformat(anchor.at)
    except ValueError:
        return f"The newest anchor line has an unreadable time ({anchor.at!r})."
    if at >= timezone.now() - allowed_lag():
        return None
    return (
        f"The newest audit anchor line is from {at:%Y-%m-%d %H:%M} UTC, but one is written "
        f"every {anchor_period().total_seconds() / 60:g} minutes: anchoring stopped, or the "
        "file lost its newest lines."
    )


def anchor_problem(*, starting: bool = False) -> str | None:
    """Why the trail is shorter than its external anchor, or the anchor cannot be trusted;
    None when it holds. `starting`: a new anchor file is being started on purpose."""
    anchor = anchor_latest()
    if anchor is None:
        return None if starting else unanchored_problem(None)
    if problem := stale_problem(anchor):
        return problem
    current = AuditEvent.objects.filter(pk=anchor.event_id).values_list("row_hash", flat=True)
    found = current.first()
    if found is None:
        total = AuditEvent.objects.count()
        what = "the trail is empty" if total == 0 else f"{total} events remain"
        return (
            f"The audit trail is shorter than its external anchor: event {anchor.event_id} "
            f"(anchored {anchor.at}) is gone and {what}."
        )
    if found != anchor.row_hash:
        return f"Event {anchor.event_id} no longer has the hash anchored at {anchor.at}."
    count = AuditEvent.objects.filter(id__lte=anchor.event_id).count()
    if count != anchor.count:
        return (
            f"{anchor.count - count} events up to event {anchor.event_id} are gone since it "
            f"was anchored ({anchor.at})."
        )
    return None
