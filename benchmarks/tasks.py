"""Thin Celery tasks of the benchmarks area: unpack the id, call one service."""

from __future__ import annotations

from celery import shared_task

from benchmarks.services.results import benchmark_result_parse


@shared_task(acks_late=True, reject_on_worker_lost=True)
def benchmark_result_parse_task(result_id: int) -> None:
    """Parse a large uploaded file. Safe to run twice: the service claims the row."""
    benchmark_result_parse(result_id=result_id)
