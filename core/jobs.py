"""Publishing background jobs by task name, and the claim/heartbeat pattern of their rows.

Services enqueue work on commit; the tasks modules import the services they call. Naming the
task (Celery's `send_task`) instead of importing it keeps that one-way: no import circle
between an app's services and its tasks.

The broker is only a doorbell (PostgreSQL is the source of truth): `send_safely` swallows a
publish failure (logged), leaving the row waiting for the beat re-drive. A worker claims a
row with one conditional UPDATE (`claim`: waiting, or running with a claim older than
`STALE_AFTER`, which also counts an attempt) and refreshes the claim as it goes
(`heartbeat`); every write of a run is filtered on its attempt, so a duplicated delivery
never runs in parallel with a live run and a run that lost its claim writes nothing.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import timedelta
from typing import Any

from celery import current_app
from django.db import connection, connections, models
from django.db.models import F, Q
from django.utils import timezone
from kombu.exceptions import KombuError

logger = logging.getLogger(__name__)

STALE_AFTER = timedelta(seconds=30)  # a claim not refreshed for this long: its worker died
KEEP_ALIVE_EVERY_S = STALE_AFTER.total_seconds() / 3  # heartbeat_while's beat: 3 per window


def send(task_name: str, args: tuple[Any, ...], **options: Any) -> None:
    """Publish one message for `task_name`; raises kombu/OS errors when the broker is down."""
    current_app.send_task(task_name, args=args, **options)


def send_safely(task_name: str, args: tuple[Any, ...], **options: Any) -> bool:
    """Publish, or log and return False when the broker cannot be reached (never raises
    for that: an on-commit callback that raises would turn a saved row into a 500)."""
    try:
        send(task_name, args, **options)
    except (KombuError, OSError) as exc:
        logger.warning("%s%r not sent, broker unavailable: %s", task_name, args, exc)
        return False
    return True


def claim(
    model: type[models.Model],
    pk: int,
    *,
    waiting: str,
    running: str,
    stale_after: timedelta = STALE_AFTER,
    take_over: Q | None = None,
    **fields: Any,
) -> int | None:
    """Claim row `pk` (status `waiting`, or `running` with a stale claim, or matching
    `take_over`: a claim known to be dead); its new attempt number, or None when someone else
    holds it or it is finished. One conditional UPDATE, so two claimers never both win. The
    model has `status`, `claimed_at` and `attempts`."""
    now = timezone.now()
    claimable = Q(status=waiting) | Q(
        Q(claimed_at__isnull=True) | Q(claimed_at__lt=now - stale_after), status=running
    )
    if take_over is not None:
        claimable |= take_over
    return claim_where(model, pk, claimable, status=running, claimed_at=now, **fields)


def claim_where(model: type[models.Model], pk: int, claimable: Q, **fields: Any) -> int | None:
    """Claim row `pk` when it matches `claimable` (for a row that says by other fields than a
    `status` whether it is waiting): `claimed_at` now, `attempts + 1` and `fields`, in one
    conditional UPDATE; its new attempt number, or None when it did not match."""
    fields.setdefault("claimed_at", timezone.now())
    updated = model._default_manager.filter(claimable, pk=pk).update(
        attempts=F("attempts") + 1, **fields
    )
    if not updated:
        return None
    return int(model._default_manager.filter(pk=pk).values_list("attempts", flat=True).get())


def heartbeat(
    model: type[models.Model], pk: int, *, running: str, attempt: int | None, **fields: Any
) -> bool:
    """Refresh this run's claim (and write `fields`); False when the claim was lost.
    `attempt` None: whichever run holds the row."""
    rows = model._default_manager.filter(pk=pk, status=running)
    if attempt is not None:
        rows = rows.filter(attempts=attempt)
    return bool(rows.update(claimed_at=timezone.now(), **fields))


def progress_writer(
    model: type[models.Model], pk: int, *, running: str, attempt: int, step: float = 0.02
) -> Callable[[float], None]:
    """A callback writing the share of a run done to its row when it moved by ``step`` (never
    1.0: the run's final write says it is done); each write refreshes the claim."""
    last = [0.0]

    def write(share: float) -> None:
        value = round(min(max(share, 0.0), 0.99), 4)
        if value - last[0] >= step:
            heartbeat(model, pk, running=running, attempt=attempt, progress=value)
            last[0] = value

    return write


def stale_claims(running: str, *, now: Any = None, stale_after: timedelta = STALE_AFTER) -> Q:
    """The filter of running rows whose claim went stale (for a re-drive)."""
    now = now or timezone.now()
    return Q(status=running) & (Q(claimed_at__isnull=True) | Q(claimed_at__lt=now - stale_after))


@contextmanager
def heartbeat_while(
    model: type[models.Model],
    pk: int,
    *,
    running: str,
    attempt: int | None,
    every_s: float | None = None,
) -> Iterator[None]:
    """Refresh the claim every `every_s` (default `KEEP_ALIVE_EVERY_S`) from a side thread
    while the block runs: for a step that reports no progress (reading a large file, building
    histograms) and could outlast `STALE_AFTER`, after which a re-drive would take a live
    parse over.

    Only outside a transaction (a worker's autocommit): inside one, the row is locked by this
    connection's own uncommitted writes, and the side thread's UPDATE would wait for it."""
    if connection.in_atomic_block:
        yield
        return
    stop = threading.Event()
    interval_s = KEEP_ALIVE_EVERY_S if every_s is None else every_s

    def beat() -> None:
        try:
            while not stop.wait(interval_s):
                if not heartbeat(model, pk, running=running, attempt=attempt):
                    return  # the claim was lost: nothing left to keep alive
        finally:
            connections.close_all()  # this thread's own connection

    thread = threading.Thread(target=beat, name=f"heartbeat-{model.__name__}-{pk}", daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join()
