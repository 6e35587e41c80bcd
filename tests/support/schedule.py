"""The order in which pytest-xdist hands test files to its workers: the longest first.

With `--dist loadfile --no-loadscope-reorder` (scripts/test.sh) a free worker takes the next
file in collection order. pytest-xdist's own reordering, by number of tests, puts a long file
of few tests (the schema fuzzer, the browser tours) last; name order puts
`tests/test_migrations.py` after every folder, and pytest-django puts every browser file behind
the plain database tests. A long file that starts last runs alone at the end while the other
workers idle. Handing the longest files out first (longest-processing-time first) evens out
the workers' loads; every other file follows in collection order. The hook runs last, after
pytest-django's own ordering. The ranking is what a parallel `make test` measured per file on
the 2-core development machine (`docs/testing.md`); only the order matters, not the seconds.
"""

from __future__ import annotations

from collections.abc import Sequence

import pytest

LONGEST_FIRST: tuple[str, ...] = (
    "tests/reliability/test_reliability_api_fuzz.py",
    "tests/parsers/test_parser_fuzz.py",
    "tests/perf/test_perf_large_comparison.py",
    "tests/test_migrations.py",
    "tests/browser/test_browser_ux.py",
    "tests/test_run_script.py",
    "tests/browser/test_browser_tables_round3.py",
    "tests/browser/test_browser_pages_clean.py",
    "tests/security/test_security_matrix.py",
    "tests/browser/test_browser_ux_pages.py",
    "tests/browser/test_browser_journeys_round3.py",
    "tests/browser/test_browser_journeys_sweeps.py",
    "tests/reliability/test_reliability_worker_kill.py",
    "tests/reliability/test_reliability_bad_uploads.py",
    "tests/browser/test_browser_finance_journey.py",
    "tests/browser/test_browser_engineer_journey.py",
    "tests/browser/test_browser_vendor_journey.py",
    "tests/browser/test_browser_sweep_upload.py",
    "tests/browser/test_browser_plan_decision.py",
    "tests/comparisons/test_comparisons_demo_evidence.py",
    "tests/reviews/test_reviews_concurrency.py",
    "tests/reliability/test_reliability_parse_kill.py",
    "tests/reviews/test_reviews_browser.py",
    "tests/browser/test_browser_journeys_vendors.py",
    "tests/reliability/test_reliability_broker.py",
    "tests/security/test_security_static.py",
)


def file_of(nodeid: str) -> str:
    return nodeid.partition("::")[0]


def longest_first(nodeids: Sequence[str]) -> list[int]:
    """The positions of `nodeids` in running order: the listed files first, in the list's
    order, then every other file as collected. Each file's tests stay together and in their
    own order, so module fixtures are still built once per worker."""
    rank = {path: position for position, path in enumerate(LONGEST_FIRST)}
    unlisted = len(LONGEST_FIRST)
    return sorted(
        range(len(nodeids)), key=lambda index: rank.get(file_of(nodeids[index]), unlisted)
    )


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Every pytest-xdist worker collects and reorders alike, so their collections stay equal."""
    items[:] = [items[index] for index in longest_first([item.nodeid for item in items])]
