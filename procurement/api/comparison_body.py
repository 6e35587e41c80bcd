"""The API body of one comparison, rendered once: JSON, gzip-compressed, with a weak ETag.

A finished comparison never changes (a recompute is a new revision, a retry a new
`finished_at`, a review a new status), and nothing in its body depends on the viewer, so each
page and view of it is rendered once and kept in the cache under a key made of the id, the
engine version and a hash of every field that can change. An unfinished one is rendered per
request (its progress moves) but still carries an ETag.
"""

from __future__ import annotations

import gzip
import hashlib
from collections.abc import Callable
from dataclasses import dataclass

from django.core.cache import cache
from django.http import HttpResponse, HttpResponseNotModified
from rest_framework import exceptions
from rest_framework.renderers import JSONRenderer
from rest_framework.request import Request

from procurement.models import Comparison

BODY_CACHE_SECONDS = 24 * 3600
BODY_FORMAT = 4  # bump when the body's shape changes: old cached bodies are never served
GZIP_LEVEL = 6

# Every stored field the body shows that may change after the comparison is finished.
_STATE_FIELDS = (
    "title",
    "status",
    "progress",
    "error",
    "recommended_key",
    "required_approvals",
    "commitment_usd",
    "seed",
    "samples",
    "revision",
    "finished_at",
    "review_due_at",
    "decided_at",
    "supersedes_id",
)


# What a cache lookup loads: the key's fields, nothing else (no joins, no counts, no JSON).
STATE_ONLY = ("id", "engine_version", *(f.removesuffix("_id") for f in _STATE_FIELDS))


@dataclass(frozen=True)
class Body:
    """One rendered body: the gzip bytes, their weak ETag and the uncompressed size."""

    gz: bytes
    etag: str
    size: int

    def raw(self) -> bytes:
        return gzip.decompress(self.gz)


def state_hash(comparison: Comparison) -> str:
    parts = [repr(getattr(comparison, name, None)) for name in _STATE_FIELDS]
    return hashlib.sha256("\x1f".join(parts).encode()).hexdigest()[:24]


def cache_key(comparison: Comparison, variant: str) -> str:
    return (
        f"comparison-api:{BODY_FORMAT}:{comparison.pk}:{comparison.engine_version}:"
        f"{state_hash(comparison)}:{variant}"
    )


def render(data: object) -> Body:
    """The body exactly as DRF's JSONRenderer writes it, compressed, and its ETag."""
    raw = JSONRenderer().render(data)
    etag = 'W/"' + hashlib.sha256(raw).hexdigest()[:32] + '"'
    return Body(gz=gzip.compress(raw, GZIP_LEVEL, mtime=0), etag=etag, size=len(raw))


def cached(comparison: Comparison, variant: str) -> Body | None:
    """The stored body of a finished comparison, if there is one (no rendering)."""
    if not comparison.is_finished:
        return None
    body: Body | None = cache.get(cache_key(comparison, variant))
    return body


def get_or_render(comparison: Comparison, variant: str, build: Callable[[], object]) -> Body:
    """The cached body of a finished comparison, or `build()` rendered (and cached)."""
    body = cached(comparison, variant)
    if body is None:
        body = render(build())
        if comparison.is_finished:
            cache.set(cache_key(comparison, variant), body, BODY_CACHE_SECONDS)
    return body


def etag_matches(header: str, etag: str) -> bool:
    """If-None-Match uses the weak comparison (RFC 9110 13.1.2): W/ prefixes are ignored."""
    if header.strip() == "*":
        return True
    wanted = etag.removeprefix("W/")
    return any(tag.strip().removeprefix("W/") == wanted for tag in header.split(","))


def accepts_gzip(header: str) -> bool:
    for part in header.split(","):
        name, _, params = part.strip().partition(";")
        if name.strip().lower() in {"gzip", "*"}:
            return params.replace(" ", "") not in {"q=0", "q=0.0", "q=0.00", "q=0.000"}
    return False


def bounded_int(request: Request, name: str, default: int, high: int, low: int = 0) -> int:
    raw = request.query_params.get(name)
    if raw is None or raw == "":
        return default
    if not raw.isdigit() or not low <= int(raw) <= high:
        raise exceptions.ValidationError({name: [f"A whole number from {low} to {high}."]})
    return int(raw)


def send(request: Request, body: Body) -> HttpResponse:
    """200 with the body (gzip when accepted) and its ETag, or 304 when the client has it."""
    headers = {"ETag": body.etag, "Vary": "Accept-Encoding, Authorization, Cookie"}
    if etag_matches(request.headers.get("If-None-Match", ""), body.etag):
        return HttpResponseNotModified(headers=headers)
    if accepts_gzip(request.headers.get("Accept-Encoding", "")):
        response = HttpResponse(body.gz, content_type="application/json", headers=headers)
        response["Content-Encoding"] = "gzip"
        return response
    return HttpResponse(body.raw(), content_type="application/json", headers=headers)
