"""Scheduled catalog refreshes: fetch a configured public file (URL or path) and import it.

`settings.CATALOG_IMPORT_SOURCES` lists the files, each `{"kind": "litellm" | "skypilot" |
"price_list", "url": "https://..." or "path": "/srv/...", "provider": "<slug>" (SkyPilot),
"only_providers": ["<slug>", ...] (LiteLLM)}`. The refresh runs as
`settings.CATALOG_IMPORT_USER` (a procurement lead or admin account), so the audit trail shows
who the import acts for; every outcome, failures included, is audit-logged.
"""

from __future__ import annotations

import urllib.request
from datetime import date
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from django.conf import settings
from django.contrib.auth import get_user_model
from django.utils import timezone

from accounts.models import Provider
from catalog.errors import ImportRejected
from catalog.importers.common import MAX_BYTES
from catalog.services.imports import ImportKind, catalog_import
from core.audit import audit_record
from core.errors import DomainError

FETCH_TIMEOUT_S = 60
KINDS = {k for k, _ in ImportKind.CHOICES}


class SourceError(Exception):
    """The configured source cannot be read (bad configuration, network, size)."""


def fetch(source: dict[str, Any]) -> tuple[bytes, str]:
    """(bytes, file name) of a configured source; at most MAX_BYTES."""
    if source.get("url"):
        url = str(source["url"])
        if urlsplit(url).scheme not in ("http", "https"):
            raise SourceError(f"Only http(s) URLs can be fetched, not {url[:80]!r}.")
        headers = {"User-Agent": "gpu-procurement-import"}
        request = urllib.request.Request(url, headers=headers)  # noqa: S310  # nosec B310
        try:
            # Only http(s), checked above.
            with urllib.request.urlopen(request, timeout=FETCH_TIMEOUT_S) as response:  # noqa: S310  # nosec B310
                data = response.read(MAX_BYTES + 1)
        except OSError as exc:
            raise SourceError(f"Could not fetch {url[:200]}: {exc}") from exc
        name = Path(urlsplit(url).path).name or "download"
    elif source.get("path"):
        path = Path(str(source["path"]))
        try:
            with path.open("rb") as handle:
                data = handle.read(MAX_BYTES + 1)
        except OSError as exc:
            raise SourceError(f"Could not read {path}: {exc}") from exc
        name = path.name
    else:
        raise SourceError("A source needs a url or a path.")
    if len(data) > MAX_BYTES:
        raise SourceError(f"The file is larger than {MAX_BYTES // 1_000_000} MB.")
    return data, name


def _provider(slug: object) -> Provider:
    try:
        return Provider.objects.get(slug=str(slug))
    except Provider.DoesNotExist as exc:
        raise SourceError(f"No provider with the slug {slug!r}.") from exc


def import_user() -> Any:
    username = getattr(settings, "CATALOG_IMPORT_USER", "")
    user = get_user_model().objects.filter(username=username, is_active=True).first()
    if not username or user is None:
        raise SourceError(
            "Set CATALOG_IMPORT_USER to the username of an active procurement lead or admin."
        )
    return user


def import_source(
    source: dict[str, Any], *, acting_user: Any = None, captured_on: date | None = None
) -> dict[str, Any]:
    """Fetch and import one source (prices captured today unless `captured_on` says);
    the outcome, or the failure, as a dict; audit-logged either way."""
    label = str(source.get("url") or source.get("path") or "")[:300]
    try:
        user = acting_user or import_user()
        kind = str(source.get("kind", ""))
        if kind not in KINDS:
            raise SourceError(f"Unknown kind {kind!r}; use one of {', '.join(sorted(KINDS))}.")
        data, name = fetch(source)
        outcome = catalog_import(
            acting_user=user,
            kind=kind,
            data=data,
            filename=name,
            captured_on=captured_on or timezone.now().date(),
            provider=_provider(source["provider"]) if source.get("provider") else None,
            only_providers=[_provider(p) for p in source.get("only_providers") or []] or None,
            all_or_nothing=source.get("all_or_nothing"),
        )
    except (SourceError, DomainError) as exc:
        errors = exc.errors if isinstance(exc, ImportRejected) else []
        audit_record(
            actor=acting_user,
            action="catalog.import_failed",
            outcome="failed",
            object_type="catalog.import",
            object_id=label[:40],
            summary={"source": label, "kind": source.get("kind"), "error": str(exc)[:500]},
        )
        return {"source": label, "ok": False, "error": str(exc), "errors": errors[:50]}
    return {"source": label, "ok": True, **outcome.as_dict()}


def import_configured_sources() -> list[dict[str, Any]]:
    """Every source in settings.CATALOG_IMPORT_SOURCES, one after the other."""
    return [import_source(dict(s)) for s in getattr(settings, "CATALOG_IMPORT_SOURCES", [])]
