"""Polling for an outcome the test cannot be told about directly (another process's write).

The timeout is a failure guard: generous, never a measure of speed. Tests never sleep to
synchronise; when they need "the worker is mid-run" they use a barrier (`paused_worker`).
"""

from __future__ import annotations

import time
from collections.abc import Callable


def wait_until(predicate: Callable[[], object], timeout: float, every: float = 0.1) -> bool:
    """True as soon as `predicate()` is truthy; False once `timeout` seconds have passed.

    An exception raised by the predicate (an `assert` that the state went wrong) ends the
    wait at once, with that message.
    """
    deadline = time.monotonic() + timeout
    while True:
        if predicate():
            return True
        if time.monotonic() >= deadline:
            return False
        time.sleep(every)
