"""Thin Celery tasks of the benchmarks area: unpack the id, call one service."""

from __future__ import annotations

from celery import shared_task

from benchmarks.services.results import benchmark_result_parse, benchmark_results_redrive_stuck


@shared_task(acks_late=True, reject_on_worker_lost=True)
def benchmark_result_parse_task(result_id: int) -> None:
    """Parse a large uploaded file. Safe to run twice: the service claims the row."""
    benchmark_result_parse(result_id=result_id)


@shared_task
def benchmark_results_redrive_stuck_task() -> int:
    """Periodic: re-enqueue results whose parse message was lost or whose worker died."""
    return benchmark_results_redrive_stuck()
