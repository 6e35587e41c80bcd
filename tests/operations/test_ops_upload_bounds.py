"""L6: a deeply nested JSON upload is refused by a linear scan of its head, before any decoder."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from benchmarks import parsers
from benchmarks.parsers import _head

CORPUS = Path(__file__).resolve().parents[1] / "reliability" / "corpus"
# The quadratic scan took 2.3 s on an idle core for this 200 KB file (3-9 s under load); the
# linear one takes milliseconds, so half a second is far from both.
BUDGET_S = 0.5


@pytest.mark.parametrize("name", ["deeply_nested.json", "deeply_nested_object.json"])
def test_l6_nested_json_is_refused_in_linear_time_with_a_clear_message(name):
    data = (CORPUS / name).read_bytes()
    started = time.perf_counter()
    with pytest.raises(parsers.ParseError, match="nesting is too deep"):
        parsers.detect(data, name)
    assert time.perf_counter() - started < BUDGET_S


def test_l6_the_head_scan_stops_at_the_depth_limit_and_keeps_shallow_documents():
    deep = b"[" * (_head.MAX_DEPTH + 1) + b"]" * (_head.MAX_DEPTH + 1)
    with pytest.raises(_head.TooDeepError, match=f"more than {_head.MAX_DEPTH} levels"):
        _head.close_prefix(deep)
    at_limit = b"[" * _head.MAX_DEPTH + b"1" + b"]" * _head.MAX_DEPTH
    assert _head.close_prefix(at_limit) == at_limit
    assert (
        _head.close_prefix(b'[{"a": [1, 2], "b": {"c": 3}}, {"d"')
        == b'[{"a": [1, 2], "b": {"c": 3}}, {}]'
    )
