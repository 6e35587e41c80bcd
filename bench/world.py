"""A large world in a throw-away PostgreSQL database for the web, end-to-end and load benches.

10,000 current quotes over the catalog's accelerators and 50 providers, a complete real-time
brief, and a computed comparison of 500 candidates. Built once per database (idempotent).
"""

from __future__ import annotations

import os
from datetime import timedelta
from decimal import Decimal

BENCH_DB = os.environ.get("BENCH_DATABASE_URL", "postgres://postgres@127.0.0.1:5432/gp_bench")
os.environ["DATABASE_URL"] = BENCH_DB
os.environ.setdefault("DEBUG", "true")
os.environ.setdefault("ALLOWED_HOSTS", "127.0.0.1,localhost,testserver")
os.environ.setdefault("CELERY_BROKER_URL", "redis://127.0.0.1:6379/14")
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")

QUOTES = 10_000
COMPARISON_CANDIDATES = 500


def ensure_database() -> None:
    import psycopg

    name = BENCH_DB.rsplit("/", 1)[-1]
    with psycopg.connect("postgres://postgres@127.0.0.1:5432/postgres", autocommit=True) as conn:
        exists = conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", [name]).fetchone()
        if not exists:
            conn.execute(f'CREATE DATABASE "{name}"')


def setup() -> dict[str, object]:
    ensure_database()
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    call_command("load_catalog", verbosity=0)
    from accounts import demo as accounts_demo

    users = accounts_demo.load()
    _quotes(users["lead"])
    brief = _brief(users["lead"])
    comparison = _comparison(users["lead"], brief)
    return {"users": users, "brief": brief, "comparison": comparison}


def _quotes(lead: object) -> None:
    from django.utils import timezone

    from accounts.models import Provider
    from catalog.models import Accelerator, Quote

    if Quote.objects.count() >= QUOTES:
        return
    providers = [
        Provider.objects.get_or_create(slug=f"bench-{i}", defaults={"name": f"Bench cloud {i}"})[0]
        for i in range(50)
    ]
    accelerators = list(Accelerator.objects.filter(segment="datacenter"))
    models = ["on_demand", "spot", "reserved", "marketplace", "dedicated_cluster"]
    now = timezone.now()
    rows = []
    for i in range(QUOTES - Quote.objects.count()):
        acc = accelerators[i % len(accelerators)]
        rows.append(
            Quote(
                provider=providers[i % len(providers)],
                accelerator=acc,
                capacity_model=models[i % len(models)],
                currency="USD",
                price_per_gpu_hour=Decimal("1.50") + Decimal(i % 300) / 100,
                gpus_per_node=min(8, acc.max_gpus_per_node),
                region=["eu-west", "us-east", "eu-central"][i % 3],
                quoted_at=now - timedelta(days=i % 45),
                valid_until=now + timedelta(days=90),
                term_months=12 if models[i % len(models)] == "reserved" else 0,
                entered_by=lead,
                source_url="https://example.com/bench-price-list",
            )
        )
    Quote.objects.bulk_create(rows, batch_size=2000)
    from django.db import connection

    with connection.cursor() as cursor:  # fresh statistics, as autovacuum would give later
        cursor.execute("ANALYZE")


def _brief(lead: object) -> object:
    from briefs.models import WorkloadBrief
    from catalog.models import ModelProfile

    existing = WorkloadBrief.objects.filter(title="Bench chat").first()
    if existing:
        return existing
    return WorkloadBrief.objects.create(
        title="Bench chat",
        workload_class="realtime_inference",
        model=ModelProfile.objects.get(slug="llama-3-1-70b"),
        weight_precision="bf16",
        kv_precision="bf16",
        context_window_tokens=8192,
        p95_input_tokens=3000,
        p95_output_tokens=500,
        mean_input_tokens=1500,
        mean_output_tokens=300,
        concurrency=32,
        ttft_p95_ms=2000,
        itl_p95_ms=80,
        e2e_p99_ms=30000,
        peak_to_average=2.0,
        monthly_accepted_outputs_low=2e6,
        monthly_accepted_outputs_likely=3e6,
        monthly_accepted_outputs_high=5e6,
        acceptance_rate_low=0.85,
        acceptance_rate_likely=0.92,
        acceptance_rate_high=0.97,
        failure_rate_low=0.005,
        failure_rate_likely=0.01,
        failure_rate_high=0.03,
        utilisation_low=0.35,
        utilisation_likely=0.55,
        utilisation_high=0.75,
        operating_model="self_managed",
        platform_fte=0.5,
        storage_gb=500,
        egress_gb_month=200,
        horizon_months=12,
        expected_model_churn_months=9,
        created_by=lead,
    )


def quote_ids(n: int) -> list[int]:
    from catalog.models import Quote

    return list(Quote.objects.current().order_by("id").values_list("id", flat=True)[:n])


def _comparison(lead: object, brief: object) -> object:
    from procurement.models import Comparison
    from procurement.services.comparisons import comparison_create, comparison_run

    existing = Comparison.objects.filter(title="Bench 500", status="ready").first()
    if existing:
        return existing
    comparison = comparison_create(
        acting_user=lead,
        brief=brief,
        quote_ids=quote_ids(COMPARISON_CANDIDATES),
        api_route_ids=[],
        title="Bench 500",
        seed=1,
        enqueue=False,
    ).comparison
    comparison_run(comparison_id=comparison.pk)
    comparison.refresh_from_db()
    return comparison
