"""Stored snapshots of an older format → the current one. Pure: no Django.

A comparison keeps the snapshot it was frozen with for ever (it is the evidence of the
decision), so readers meet every format ever written. `upgrade` turns any of them into the
current format once, at the top of `thaw`, and the readers after it know one shape only.

Format 1 froze, beside every parsed result (`measured.results`), the "best" result per quote
and per accelerator (`measured.by_quote`, `measured.by_accelerator`) as a second evidence
policy ranked at freeze time; the oldest format-1 snapshots hold only those two. Format 2
freezes the results alone and lets the matching rules (engine/evidence.py) judge them at
compute time. Upgrading keeps the results; a snapshot without them gets its ranked figures
back as results (they name no model, so the matching rules ignore them and say so, exactly
as format-1 readers did), and every result id the old snapshot named stays named.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import cast

from procurement.snapshot.schema import (
    SNAPSHOT_FORMAT,
    Assumptions,
    Effective,
    FrozenResult,
    Measured,
    Overrides,
    Snapshot,
)


class SnapshotFormatError(ValueError):
    """A snapshot written by a newer release than this one (it cannot be read safely)."""


def format_of(snapshot: Mapping[str, object]) -> int:
    raw = snapshot.get("format")
    return raw if isinstance(raw, int) and not isinstance(raw, bool) else 1


def upgrade(snapshot: Mapping[str, object]) -> Snapshot:
    """The snapshot in the current format: a new dict, the stored one is never changed."""
    found = format_of(snapshot)
    if found > SNAPSHOT_FORMAT:
        raise SnapshotFormatError(
            f"This comparison was frozen in snapshot format {found}, newer than this release "
            f"reads ({SNAPSHOT_FORMAT}): open it with the release that wrote it."
        )
    out = dict(snapshot)
    if found < 2:
        out = _from_format_1(out)
    out["format"] = SNAPSHOT_FORMAT
    return cast(Snapshot, out)


def _from_format_1(snap: dict[str, object]) -> dict[str, object]:
    measured = snap.get("measured")
    old = cast(Mapping[str, object], measured) if isinstance(measured, Mapping) else {}
    results = old.get("results")
    kept: list[FrozenResult] = (
        [cast(FrozenResult, r) for r in results if isinstance(r, Mapping)]
        if isinstance(results, list) and results
        else _ranked_as_results(snap, old)
    )
    snap["measured"] = Measured(results=kept)
    snap["assumptions"] = _scalar_effective(snap.get("assumptions"))
    snap.setdefault("calibration", {})
    snap.setdefault("selection", {"default": False, "quote_ids": [], "api_route_ids": []})
    return snap


def _scalar_effective(found: object) -> Assumptions:
    """Format 1 copied the ranged overrides into `effective` as well; they are read from
    `overrides` only, so `effective` keeps the scalars."""
    raw = cast(Mapping[str, object], found) if isinstance(found, Mapping) else {}
    overrides = raw.get("overrides")
    effective = raw.get("effective")
    scalars = {
        str(k): v
        for k, v in (effective.items() if isinstance(effective, Mapping) else ())
        if isinstance(v, int | float) and not isinstance(v, bool)
    }
    return Assumptions(
        overrides=cast(Overrides, dict(overrides) if isinstance(overrides, Mapping) else {}),
        effective=cast(Effective, scalars),
    )


def _scope(old: Mapping[str, object], name: str) -> dict[str, Mapping[str, object]]:
    found = old.get(name)
    if not isinstance(found, Mapping):
        return {}
    return {str(k): v for k, v in found.items() if isinstance(v, Mapping)}


def _ranked_as_results(snap: Mapping[str, object], old: Mapping[str, object]) -> list[FrozenResult]:
    """The best figures per accelerator and per quote of the oldest snapshots, as results (a
    result both named is the quote's, which says whose offer it measured)."""
    accelerators = snap.get("accelerators")
    slugs: dict[str, str] = {}
    if isinstance(accelerators, Mapping):
        for acc in accelerators.values():
            if isinstance(acc, Mapping):
                slugs[str(acc.get("id"))] = str(acc.get("slug") or "")
    quotes = snap.get("quotes")
    quote_slugs: dict[str, str] = {}
    if isinstance(quotes, list):
        for quote in quotes:
            if isinstance(quote, Mapping):
                quote_slugs[str(quote.get("id"))] = str(quote.get("accelerator_slug") or "")
    out: dict[object, FrozenResult] = {}
    for key, found in _scope(old, "by_accelerator").items():
        item = cast(FrozenResult, {**found, "accelerator": slugs.get(key, "")})
        out.setdefault(found.get("result_id"), item)
    for key, found in _scope(old, "by_quote").items():
        quote_id = int(key) if key.isdigit() else None
        out[found.get("result_id")] = cast(
            FrozenResult,
            {**found, "quote_id": quote_id, "accelerator": quote_slugs.get(key, "")},
        )
    return list(out.values())
