"""Run in a subprocess against a scratch database: build the schema `main` had before the
floor-plan moves (the migration nodes below), write rows through the historical models, then
migrate to today's leaf nodes and print what today's models read back, as JSON.

usage: DATABASE_URL=postgres://.../scratch python -m tests.support.migrate_upgrade
"""

from __future__ import annotations

import json
import os

import django

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings_test")
django.setup()

from django.db import connection  # noqa: E402
from django.db.migrations.executor import MigrationExecutor  # noqa: E402

# The leaf migration of every app on `main` before the layout moved (commit 552bc85).
BEFORE = [
    ("accounts", "0001_initial"),
    ("catalog", "0002_initial"),
    ("checklist", "0002_seed_items"),
    ("benchmarks", "0002_initial"),
    ("procurement", "0003_comparison_claimed_by"),
]


def main() -> None:
    executor = MigrationExecutor(connection)
    executor.migrate(BEFORE)
    old = executor.loader.project_state(BEFORE).apps
    user = old.get_model("accounts", "User").objects.create(username="old-lead", role="lead")
    brief = old.get_model("procurement", "WorkloadBrief").objects.create(
        title="Brief from before", workload_class="realtime_inference", created_by=user
    )
    comparison = old.get_model("procurement", "Comparison").objects.create(
        title="Comparison from before", brief=brief, created_by=user, seed=7, snapshot={}
    )
    event = old.get_model("procurement", "AuditEvent").objects.create(
        actor=user, actor_name="old-lead", action="brief.created", object_type="x", object_id="1"
    )

    executor = MigrationExecutor(connection)
    executor.migrate(executor.loader.graph.leaf_nodes())

    after = MigrationExecutor(connection)  # a fresh loader sees what is applied now
    pending = after.migration_plan(after.loader.graph.leaf_nodes())

    from briefs.models import WorkloadBrief
    from core.models import AuditEvent
    from procurement.models import Comparison

    print(
        json.dumps(
            {
                "brief_title": WorkloadBrief.objects.get(pk=brief.pk).title,
                "comparison_brief": Comparison.objects.get(pk=comparison.pk).brief.title,
                "brief_comparisons": WorkloadBrief.objects.get(pk=brief.pk).comparisons.count(),
                "audit_action": AuditEvent.objects.get(pk=event.pk).action,
                "pending": len(pending),
            }
        )
    )


if __name__ == "__main__":
    main()
