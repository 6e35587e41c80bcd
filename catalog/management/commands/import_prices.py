"""manage.py import_prices: import a public price file (path or URL), or every configured one.

manage.py import_prices litellm https://.../model_prices_and_context_window.json --user lead
manage.py import_prices skypilot vms.csv --provider aws --captured-on 2026-12-01 --user lead
manage.py import_prices --configured        # settings.CATALOG_IMPORT_SOURCES, as a beat run
"""

from __future__ import annotations

import json
from datetime import date
from typing import Any

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError

from catalog.services.import_sources import KINDS, import_configured_sources, import_source


class Command(BaseCommand):
    help = "Import a public price file (SkyPilot vms.csv, LiteLLM JSON, price-list CSV)."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("kind", nargs="?", choices=sorted(KINDS))
        parser.add_argument("source", nargs="?", help="A file path or an http(s) URL.")
        parser.add_argument("--provider", help="SkyPilot: the provider slug the file lists.")
        parser.add_argument("--only-provider", action="append", default=[], dest="only")
        parser.add_argument("--captured-on", type=date.fromisoformat, default=None)
        parser.add_argument("--user", help="Acting user (default: CATALOG_IMPORT_USER).")
        parser.add_argument(
            "--all-or-nothing",
            action="store_true",
            default=None,
            help="Refuse the whole file when any row is wrong.",
        )
        parser.add_argument("--configured", action="store_true", help="Every configured source.")

    def handle(self, *args: Any, **options: Any) -> None:
        if options["configured"]:
            results = import_configured_sources()
        else:
            if not options["kind"] or not options["source"]:
                raise CommandError("Give a kind and a file path or URL (or --configured).")
            results = [self._one(options)]
        self.stdout.write(json.dumps(results, indent=2, default=str))
        if any(not r.get("ok") for r in results):
            raise CommandError("Some imports failed; see above (and the audit trail).")

    def _one(self, options: dict[str, Any]) -> dict[str, Any]:
        source = options["source"]
        config: dict[str, Any] = {
            "kind": options["kind"],
            "all_or_nothing": options["all_or_nothing"],
        }
        config["url" if source.startswith(("http://", "https://")) else "path"] = source
        if options["provider"]:
            config["provider"] = options["provider"]
        if options["only"]:
            config["only_providers"] = options["only"]
        user = None
        if options["user"]:
            user = get_user_model().objects.filter(username=options["user"]).first()
            if user is None:
                raise CommandError(f"No user {options['user']!r}.")
        return import_source(config, acting_user=user, captured_on=options["captured_on"])
