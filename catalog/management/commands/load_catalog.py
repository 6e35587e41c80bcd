"""manage.py load_catalog: upsert accelerators and model profiles from catalog/data/."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand

from catalog.services.seed_data import DATA_DIR, catalog_load


class Command(BaseCommand):
    help = "Create or update accelerators and model profiles from the checked-in JSON files."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--data-dir", type=Path, default=DATA_DIR)

    def handle(self, *args: Any, **options: Any) -> None:
        counts = catalog_load(options["data_dir"])
        for name, c in counts.items():
            self.stdout.write(f"{name}: {c['created']} created, {c['updated']} updated")
