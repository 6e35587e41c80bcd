"""Thin Celery tasks of the briefs area: unpack the id, call one service."""

from __future__ import annotations

from celery import shared_task

from briefs.services.traces import traffic_trace_read, traffic_traces_redrive_stuck


@shared_task(acks_late=True, reject_on_worker_lost=True)
def traffic_trace_read_task(trace_id: int) -> None:
    """Read an uploaded traffic trace. Safe to run twice: the service claims the row."""
    traffic_trace_read(trace_id=trace_id)


@shared_task
def traffic_traces_redrive_stuck_task() -> int:
    """Periodic: re-enqueue traces whose read was lost or whose worker died."""
    return traffic_traces_redrive_stuck()
