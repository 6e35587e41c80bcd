"""manage.py deploy: every step a release needs before gunicorn serves it, in one command that
the Dockerfile, docker-compose.yml and the hand deployment all run (L2).

A hand deployment that ran only `migrate` served a 500 on every page (no static manifest)
while /healthz said ok; one that skipped `load_catalog` had no accelerators to quote."""

from __future__ import annotations

from typing import Any

from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError

from procurement.services.system import static_ok


class Command(BaseCommand):
    help = (
        "Migrate the database, load the catalog and collect the static files, then check that "
        "pages can link them. Run it on every release, before (re)starting gunicorn."
    )

    def add_arguments(self, parser: Any) -> None:
        steps = parser.add_mutually_exclusive_group()
        steps.add_argument(
            "--static-only",
            action="store_true",
            help="Only collect the static files (an image build, which has no database).",
        )
        steps.add_argument(
            "--skip-static",
            action="store_true",
            help="Leave the static files as they are (an image that collected them at build).",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        verbosity = options["verbosity"]
        if not options["static_only"]:
            self.stdout.write("== migrate")
            call_command("migrate", interactive=False, verbosity=verbosity)
            self.stdout.write("== load_catalog")
            call_command("load_catalog", verbosity=verbosity)
        if not options["skip_static"]:
            self.stdout.write("== collectstatic")
            call_command("collectstatic", interactive=False, verbosity=min(verbosity, 1))
        ok, detail = static_ok()
        if not ok:
            raise CommandError(f"Static files: {detail}")
        self.stdout.write(self.style.SUCCESS(f"Deployed; static files: {detail}."))
