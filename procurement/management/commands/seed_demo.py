"""Load the demo world: users, then each app's demo data. Idempotent; never in production."""

from __future__ import annotations

import importlib
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

# Order matters: later modules use what earlier ones created.
DEMO_MODULES = [
    "accounts.demo",
    "catalog.demo",
    "checklist.demo",
    "benchmarks.demo",
    "procurement.demo",
]


class Command(BaseCommand):
    help = "Create demo providers, users and data (refused when DEBUG is off)."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--force", action="store_true", help="Allow with DEBUG off.")

    def handle(self, *args: Any, **options: Any) -> None:
        if not settings.DEBUG and not options["force"]:
            raise CommandError("Demo data is for development only (DEBUG is off).")
        for name in DEMO_MODULES:
            try:
                module = importlib.import_module(name)
            except ModuleNotFoundError as exc:
                if exc.name == name:
                    continue
                raise
            module.load(stdout=self.stdout)
        self.stdout.write(self.style.SUCCESS("Demo data ready."))
