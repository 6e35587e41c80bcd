"""Re-send comparisons stuck in queued or running (what the beat task does every minute)."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from core.jobs import STALE_AFTER
from procurement.services.comparisons import comparisons_redrive_stuck


class Command(BaseCommand):
    help = "Re-enqueue comparisons queued, or running with a stale claim, for too long."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument(
            "--older-than-minutes",
            type=float,
            default=STALE_AFTER.total_seconds() / 60,
            help="Only comparisons stuck longer than this (default: the stale-claim limit, "
            "as the beat task).",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        minutes = options["older_than_minutes"]
        if minutes < 0:
            raise CommandError("--older-than-minutes must be zero or more.")
        sent = comparisons_redrive_stuck(older_than=timedelta(minutes=minutes))
        self.stdout.write(f"Re-sent {sent} comparison(s) to the worker queue.")
