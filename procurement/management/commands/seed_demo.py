"""Load the demo world: users, then each app's demo data. Idempotent; never in production."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from accounts import demo as accounts_demo
from benchmarks import demo as benchmarks_demo
from briefs import demo as briefs_demo
from catalog import demo as catalog_demo
from checklist import demo as checklist_demo
from procurement import demo as procurement_demo

# Order matters: later modules use what earlier ones created.
DEMO_MODULES = [
    accounts_demo,
    catalog_demo,
    checklist_demo,
    briefs_demo,
    benchmarks_demo,
    procurement_demo,
]


class Command(BaseCommand):
    help = "Create demo providers, users and data (refused when DEBUG is off)."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--force", action="store_true", help="Allow with DEBUG off.")

    def handle(self, *args: Any, **options: Any) -> None:
        if not settings.DEBUG and not options["force"]:
            raise CommandError("Demo data is for development only (DEBUG is off).")
        for module in DEMO_MODULES:
            module.load(stdout=self.stdout)
        self.stdout.write(self.style.SUCCESS("Demo data ready."))
