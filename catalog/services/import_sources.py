"""Scheduled catalog refreshes: fetch a configured public file (URL or path) and import it.

`settings.CATALOG_IMPORT_SOURCES` lists the files, each `{"kind": "litellm" | "skypilot" |
"price_list", "url": "https://..." or "path": "/srv/...", "provider": "<slug>" (SkyPilot),
"only_providers": ["<slug>", ...] (LiteLLM)}`. The refresh runs as
`settings.CATALOG_IMPORT_USER` (a procurement lead or admin account), so the audit trail shows
who the import acts for; every outcome, failures included, is audit-logged.
"""

from __future__ import annotations

import ipaddress
import re
import socket
import urllib.error
import urllib.request
from datetime import date
from pathlib import Path
from typing import Any
from urllib.parse import urljoin, urlsplit

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


MAX_REDIRECTS = 5
# A value quoted in a row error ('AKIA…', "x", “x”): what a fetched body may echo back.
_QUOTED = re.compile(r"'[^']*'|\"[^\"]*\"|“[^”]*”")


class _NoRedirects(urllib.request.HTTPRedirectHandler):
    """Hand every redirect back to `fetch`, which checks the next hop before following it."""

    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None


def _refused_address(host: str, port: int) -> str | None:
    """Why `host` may not be fetched: it resolves to a private, loopback, link-local,
    reserved or multicast address (the metadata service, the intranet), unless it is one of
    ``CATALOG_IMPORT_PRIVATE_HOSTS``; None when every address it resolves to is public."""
    if host.lower() in {h.lower() for h in settings.CATALOG_IMPORT_PRIVATE_HOSTS}:
        return None
    try:
        infos = socket.getaddrinfo(host, port, proto=socket.IPPROTO_TCP)
    except OSError:
        return f"the host {host[:80]!r} does not resolve"
    for info in infos:
        address = ipaddress.ip_address(str(info[4][0]).split("%")[0])
        if any(not a.is_global or a.is_multicast for a in (address, *_embedded_ipv4(address))):
            return f"the host {host[:80]!r} is a private, loopback or link-local address"
    return None


NAT64 = ipaddress.ip_network("64:ff9b::/96")


def _embedded_ipv4(address: ipaddress.IPv4Address | ipaddress.IPv6Address) -> list[Any]:
    """The IPv4 address an IPv6 one carries (NAT64, 6to4, mapped, Teredo): Python calls
    `64:ff9b::7f00:1` and `2002:7f00:1::` global though they reach 127.0.0.1 (round 4,
    informational note 2)."""
    if not isinstance(address, ipaddress.IPv6Address):
        return []
    found: list[Any] = [a for a in (address.ipv4_mapped, address.sixtofour) if a is not None]
    if address.teredo is not None:
        found.extend(address.teredo)
    if address in NAT64:
        found.append(ipaddress.IPv4Address(int(address) & 0xFFFFFFFF))
    return found


def _open_checked(url: str) -> tuple[bytes, str]:
    """GET `url`, following at most MAX_REDIRECTS redirects, each hop's scheme and resolved
    addresses checked before it is contacted."""
    opener = urllib.request.build_opener(_NoRedirects)
    headers = {"User-Agent": "gpu-procurement-import"}
    for _hop in range(MAX_REDIRECTS + 1):
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise SourceError(f"Only http(s) URLs can be fetched, not {url[:80]!r}.")
        port = parts.port or (443 if parts.scheme == "https" else 80)
        refused = _refused_address(parts.hostname, port)
        if refused:
            raise SourceError(f"Refused to fetch {parts.scheme}://{parts.hostname}: {refused}.")
        request = urllib.request.Request(url, headers=headers)  # noqa: S310  # nosec B310
        try:
            # Only http(s) to a checked host, see above.
            with opener.open(request, timeout=FETCH_TIMEOUT_S) as response:
                return response.read(MAX_BYTES + 1), url
        except urllib.error.HTTPError as exc:
            location = exc.headers.get("Location") if 300 <= exc.code < 400 else None
            if not location:
                raise SourceError(f"Could not fetch {url[:200]}: HTTP {exc.code}.") from exc
            url = urljoin(url, location)
        except OSError as exc:
            raise SourceError(f"Could not fetch {url[:200]}: {type(exc).__name__}.") from exc
    raise SourceError(f"Too many redirects (more than {MAX_REDIRECTS}).")


def fetch(source: dict[str, Any]) -> tuple[bytes, str]:
    """(bytes, file name) of a configured source; at most MAX_BYTES."""
    if source.get("url"):
        data, url = _open_checked(str(source["url"]))
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
        error = _without_values(str(exc)) if isinstance(exc, ImportRejected) else str(exc)
        audit_record(
            actor=acting_user,
            action="catalog.import_failed",
            outcome="failed",
            object_type="catalog.import",
            object_id=label[:40],
            summary={"source": label, "kind": source.get("kind"), "error": error[:500]},
        )
        return {"source": label, "ok": False, "error": error, "errors": _row_errors(errors)}
    done = outcome.as_dict()
    return {"source": label, "ok": True, **done, "errors": _row_errors(done.get("errors"))}


def _without_values(message: str) -> str:
    """A message about a fetched file with every quoted value taken out: the outcome is
    printed, logged by the beat and stored, and the file's content is not ours to echo."""
    return _QUOTED.sub("'…'", message)[:300]


def _row_errors(errors: Any) -> list[Any]:
    cleaned = []
    for error in list(errors or [])[:50]:
        if isinstance(error, dict):
            error = {**error, "message": _without_values(str(error.get("message", "")))}
        else:
            error = _without_values(str(error))
        cleaned.append(error)
    return cleaned


def import_configured_sources() -> list[dict[str, Any]]:
    """Every source in settings.CATALOG_IMPORT_SOURCES, one after the other."""
    return [import_source(dict(s)) for s in getattr(settings, "CATALOG_IMPORT_SOURCES", [])]
