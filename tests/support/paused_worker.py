"""The barrier worker: the real Celery app, with the comparison compute step (or a benchmark
parse) paused mid-run.

    celery -A tests.support.paused_worker worker ...      # with PAUSE_FLAG_ENV set to a path
    celery -A tests.support.paused_worker worker ...      # with PAUSE_PARSE_FLAG_ENV set

With `PAUSE_PARSE_FLAG_ENV`, the first benchmark parse to reach its parser creates that flag
and blocks forever: the row is claimed (PARSING, its attempt counted), the file read, nothing
parsed or written. The same once-only rule holds.

In this worker, the first time a comparison's progress reaches `PAUSE_AT` (0.2) the compute
step creates the flag file and then blocks forever. A test waits for the file (a fact, not a
timing), so it knows the worker has claimed the row and the engine is under way but nothing
is written, and kills the worker there. If the flag already exists (a pool child restarted
after the kill runs the redelivery) the run goes on normally: the barrier holds once.

Nothing in the product reads `PAUSE_FLAG_ENV`: the wrapper is installed here, on
`worker_init`, in the worker process only (its pool children inherit it by fork).
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from celery import signals

from config.celery import app

__all__ = ["PAUSE_AT", "PAUSE_FLAG_ENV", "PAUSE_PARSE_FLAG_ENV", "app", "pausing", "pausing_call"]

PAUSE_FLAG_ENV = "TEST_PAUSE_FLAG_FILE"
PAUSE_PARSE_FLAG_ENV = "TEST_PAUSE_PARSE_FLAG_FILE"
PAUSE_AT = 0.2


def pausing(compute: Callable[..., Any], flag: Path) -> Callable[..., Any]:
    """`compute` whose progress callback, at the first fraction ≥ PAUSE_AT, creates `flag`
    and never returns (unless `flag` already existed)."""

    def paused_compute(*args: Any, progress: Callable[[float], None] | None = None, **kw: Any):
        def report(fraction: float) -> None:
            if progress is not None:
                progress(fraction)
            if fraction >= PAUSE_AT:
                try:
                    flag.open("x").close()  # atomic: only the first run ever pauses
                except FileExistsError:
                    return
                threading.Event().wait()  # until the test kills this process

        return compute(*args, progress=report, **kw)

    return paused_compute


def pausing_call(function: Callable[..., Any], flag: Path) -> Callable[..., Any]:
    """`function` whose first call creates `flag` and never returns (later calls, and every
    call once `flag` exists, run normally)."""

    def paused(*args: Any, **kwargs: Any) -> Any:
        try:
            flag.open("x").close()
        except FileExistsError:
            return function(*args, **kwargs)
        threading.Event().wait()  # until the test kills this process
        return None  # never reached

    return paused


@signals.worker_init.connect
def _install_barrier(**_: Any) -> None:
    import django

    django.setup()
    if PAUSE_PARSE_FLAG_ENV in os.environ:
        from benchmarks import parsers

        # benchmarks.services.results calls `parsers.parse` through the module: patched here.
        parsers.parse = pausing_call(parsers.parse, Path(os.environ[PAUSE_PARSE_FLAG_ENV]))
        return
    from procurement.services.comparisons import run

    flag = Path(os.environ[PAUSE_FLAG_ENV])  # a KeyError here: the test forgot to set it
    run.compute = pausing(run.compute, flag)
