"""manage.py deploy: every step a release needs before gunicorn serves it, in one command that
the Dockerfile, docker-compose.yml and the hand deployment all run (L2).

A hand deployment that ran only `migrate` served a 500 on every page (no static manifest)
while /healthz said ok; one that skipped `load_catalog` had no accelerators to quote."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

from django.conf import settings
from django.contrib.staticfiles.finders import get_finders
from django.core.files.storage import Storage
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError

from procurement.services.system import static_ok

#: beside the collected files: what they were collected from
FINGERPRINT = ".deploy-fingerprint"


def _sources_fingerprint() -> str:
    """A digest of every static source file (name and bytes) and of the storage that
    processes them: equal, and the collected files are those collectstatic would write."""
    digest = hashlib.sha256(settings.STORAGES["staticfiles"]["BACKEND"].encode())
    found: dict[str, Storage] = {}
    for finder in get_finders():
        for path, storage in finder.list([]):
            found.setdefault(path, storage)
    for path in sorted(found):
        digest.update(path.encode() + b"\0")
        with found[path].open(path) as handle:
            digest.update(hashlib.sha256(handle.read()).digest())
    return digest.hexdigest()


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
            self._collect(verbosity)
        ok, detail = static_ok()
        if not ok:
            raise CommandError(f"Static files: {detail}")
        self.stdout.write(self.style.SUCCESS(f"Deployed; static files: {detail}."))

    def _collect(self, verbosity: int) -> None:
        """collectstatic, unless the files collected are already those of these sources: it
        hashes and compresses every file again (one to three minutes), which a restart of an
        unchanged release (a supervisor bringing gunicorn back) must not wait for."""
        stamp = Path(settings.STATIC_ROOT) / FINGERPRINT
        fingerprint = _sources_fingerprint()
        current = stamp.read_text() if stamp.exists() else ""
        if current == fingerprint and static_ok()[0]:
            self.stdout.write("== collectstatic: the collected files are current")
            return
        self.stdout.write("== collectstatic")
        call_command("collectstatic", interactive=False, verbosity=min(verbosity, 1))
        stamp.write_text(fingerprint)
