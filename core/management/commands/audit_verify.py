"""manage.py audit_verify: re-verify the whole audit hash chain (the page verifies only what
came after the last checkpoint)."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError

from core.audit import audit_chain_verify
from core.audit_anchor import anchor_problem


class Command(BaseCommand):
    help = "Verify every audit event's HMAC and chain link; exit 1 when any is broken."

    def handle(self, *args: Any, **options: Any) -> None:
        problem = anchor_problem()
        if problem:
            raise CommandError(problem)
        broken = audit_chain_verify(full=True)
        if broken:
            raise CommandError(f"Hash chain broken at {len(broken)} events: {broken[:20]}")
        self.stdout.write("Hash chain verified.")
