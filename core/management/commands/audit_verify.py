"""manage.py audit_verify: re-verify the whole audit hash chain (the page verifies only what
came after the last checkpoint)."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError

from core.audit import audit_chain_verify, audit_record
from core.audit_anchor import anchor_path, anchor_problem


class Command(BaseCommand):
    help = "Verify every audit event's HMAC and chain link; exit 1 when any is broken."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument(
            "--start-anchor",
            action="store_true",
            help="Start a new, empty AUDIT_ANCHOR_FILE on purpose (audited); never to silence "
            "an anchor file that was emptied.",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        starting = bool(options.get("start_anchor"))
        problem = anchor_problem(starting=starting)
        if problem:
            raise CommandError(problem)
        if starting:
            audit_record(
                actor=None,
                action="audit.anchor_started",
                object_type="core.auditanchor",
                object_id="anchor-file",
                summary={"file": str(anchor_path() or "")},
            )
        broken = audit_chain_verify(full=True, starting=starting)
        if broken:
            raise CommandError(f"Hash chain broken at {len(broken)} events: {broken[:20]}")
        self.stdout.write("Hash chain verified.")
