"""manage.py import_mlperf: published MLPerf Inference results as the product's evidence."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError
from django.db import DatabaseError

from benchmarks.parsers.errors import ParseError
from benchmarks.services.published import (
    SEED,
    ImportReport,
    entries_from_reader,
    published_results_import,
    published_seed_load,
    read_published,
    seed_text,
)


class Command(BaseCommand):
    help = (
        "Import published MLPerf Inference results: a results folder or its archive (.zip, "
        ".tar.gz) in the results repositories' layout, or with --seed the shipped v4.1 seed. "
        "Re-importing is idempotent; unusable entries are listed as skipped with their reason."
    )

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("path", nargs="?", type=Path, help="results folder or archive")
        parser.add_argument("--seed", action="store_true", help=f"load {SEED.name}")
        parser.add_argument("--round", dest="round_id", help="e.g. v4.1 (default: from the path)")
        parser.add_argument(
            "--export-seed",
            type=Path,
            help="write the compact seed (results, skipped, provenance) instead of importing",
        )
        parser.add_argument("--provenance", default="", help="the seed's source, in words")

    def handle(self, *args: Any, **options: Any) -> None:
        path: Path | None = options["path"]
        if options["seed"] == (path is not None):
            raise CommandError("Give a results folder or archive, or --seed (not both).")
        if path is None:
            self._report(published_seed_load(), listed=options["verbosity"] > 0)
            return
        if not path.exists():
            raise CommandError(f"{path} does not exist.")
        try:
            read = read_published(path, round_id=options["round_id"])
        except ParseError as exc:
            raise CommandError(str(exc)) from exc
        entries, skipped = entries_from_reader(read)
        if out := options["export_seed"]:
            out.write_text(seed_text(entries, skipped, options["provenance"]), encoding="utf-8")
            self.stdout.write(f"{len(entries)} results, {len(skipped)} skipped → {out}")
            return
        try:
            report = published_results_import(entries, skipped)
        except DatabaseError as exc:  # one transaction: nothing of the round was written
            raise CommandError(f"Nothing was imported: {exc}") from exc
        self._report(report, listed=options["verbosity"] > 0)

    def _report(self, report: ImportReport, *, listed: bool) -> None:
        self.stdout.write(report.words())
        for skip in report.skipped if listed else ():
            self.stdout.write(f"  skipped {skip.path}: {skip.reason}")
