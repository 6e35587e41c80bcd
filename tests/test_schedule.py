"""The longest-first order of test files (tests/support/schedule.py) names real files and keeps
each file's tests together and in their own order."""

from __future__ import annotations

from pathlib import Path

from tests.support.schedule import LONGEST_FIRST, longest_first

ROOT = Path(__file__).resolve().parent.parent


def test_every_listed_file_exists_once() -> None:
    assert len(set(LONGEST_FIRST)) == len(LONGEST_FIRST)
    missing = [path for path in LONGEST_FIRST if not (ROOT / path).is_file()]
    assert missing == [], "rename or drop these in tests/support/schedule.py"


def test_listed_files_run_first_in_the_lists_order_and_the_rest_as_collected() -> None:
    second, first = LONGEST_FIRST[1], LONGEST_FIRST[0]
    nodeids = [
        "tests/a/test_a.py::one",
        f"{second}::x",
        "tests/b/test_b.py::two",
        f"{first}::y",
        f"{second}::z",
        "tests/a/test_a.py::three",
    ]
    order = [nodeids[index] for index in longest_first(nodeids)]
    assert order == [
        f"{first}::y",
        f"{second}::x",
        f"{second}::z",
        "tests/a/test_a.py::one",
        "tests/b/test_b.py::two",
        "tests/a/test_a.py::three",
    ]
