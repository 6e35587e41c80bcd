"""Web: every page and list (HTML and API) with 10,000 quotes and a 500-candidate comparison
in PostgreSQL — p50/p95 server time over repeated in-process requests, and the SQL
query count (which must not depend on the number of rows)."""

from __future__ import annotations

import time

from bench import world
from bench.common import at_most, emit, percentile, record

REQUESTS = 30
P95_LIMIT_MS = 150.0


def main() -> None:
    w = world.setup()
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext
    from knox.models import AuthToken

    lead = w["users"]["lead"]
    comparison = w["comparison"]
    client = Client()
    client.force_login(lead)
    token = AuthToken.objects.create(user=lead)[1]  # knox: the key is shown once
    api = {"HTTP_AUTHORIZATION": f"Token {token}"}
    pages = {
        "dashboard_page": ("/", {}),
        "accelerators_page": ("/catalog/", {}),
        "briefs_page": ("/briefs/", {}),
        "benchmarks_page": ("/benchmarks/", {}),
        "comparisons_page": ("/comparisons/", {}),
        "comparisons_api": ("/api/v1/comparisons/", api),
        "comparison_summary_api": (f"/api/v1/comparisons/{comparison.pk}/?view=summary", api),
        "quotes_page": ("/catalog/quotes/", {}),
        "quotes_api": ("/api/v1/quotes/", {"HTTP_AUTHORIZATION": f"Token {token}"}),
        "comparison_page": (f"/comparisons/{comparison.pk}/", {}),
        "comparison_api": (
            f"/api/v1/comparisons/{comparison.pk}/",
            {"HTTP_AUTHORIZATION": f"Token {token}"},
        ),
    }
    out = {}
    for name, (url, headers) in pages.items():
        for _ in range(3):
            assert client.get(url, **headers).status_code == 200, url
        times = []
        for _ in range(REQUESTS):
            start = time.perf_counter()
            client.get(url, **headers)
            times.append((time.perf_counter() - start) * 1000)
        with CaptureQueriesContext(connection) as ctx:
            client.get(url, **headers)
        p95 = percentile(times, 0.95)
        out[f"web_{name}_p50_ms"] = record(percentile(times, 0.5), "ms", "(p50)", True)
        out[f"web_{name}_p95_ms"] = at_most(p95, P95_LIMIT_MS, "ms", f"<= {P95_LIMIT_MS:.0f} ms")
        out[f"web_{name}_queries"] = record(
            len(ctx.captured_queries),
            "queries",
            "independent of rows (asserted in make test)",
            True,
        )
    emit(out)


if __name__ == "__main__":
    main()
