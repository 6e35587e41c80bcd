"""Regions as geography: cloud region codes → country, area and geographies (pure, no Django).

A brief's allowed regions may name a geography (`EU`, `Europe`, `US`), a country (`DE`, `UK`),
an area of our own vocabulary (`eu-west`, `eu-central`, `us-east`) or a concrete cloud region
(`eu-west-1`). A candidate's region is inside the boundary when its place matches one of them:
the same code, a geography that contains its country, its country, its area, or a concrete
region in the same country. The vocabulary is `catalog/data/regions.json` (AWS, GCP, Azure,
Nebius, Lambda, OCI codes) plus RunPod's data-centre ids (`EU-NL-1`, `US-TX-3`) and bare
country codes (`NL`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

DATA_FILE = Path(__file__).resolve().parent / "data" / "regions.json"
LABEL_GEOGRAPHIES = ("europe", "north america", "asia pacific", "middle east", "south america")
RUNPOD_ID = re.compile(r"^(eu|us|ca|ap|oc|sa|af|me)-([a-z]{2})-\d+$")


@dataclass(frozen=True, slots=True)
class Place:
    code: str
    country: str  # ISO 3166-1 alpha-2, "" for an area of our vocabulary
    area: str  # eu-west, us-east, ... ("" when not known)
    geographies: frozenset[str]  # lower-case: "eu", "europe", "us", ...

    def label(self, names: dict[str, str]) -> str:
        parts = [names.get(self.country, self.country)] if self.country else [self.area]
        parts += [g.title() for g in LABEL_GEOGRAPHIES if g in self.geographies][:1]
        if "eu" in self.geographies:
            parts.append("EU")
        return ", ".join(p for p in parts if p)


def _norm(text: str) -> str:
    return text.strip().lower()


@cache
def _vocabulary() -> dict[str, Any]:
    raw = json.loads(DATA_FILE.read_text(encoding="utf-8"))
    countries_geos: dict[str, set[str]] = {}
    for geo, members in raw["geographies"].items():
        for country in members:
            countries_geos.setdefault(country, set()).add(_norm(geo))
    area_of = {c: area for area, members in raw["areas"].items() for c in members}
    regions: dict[str, tuple[str, str]] = {}
    for codes in raw["regions"].values():
        for code, value in codes.items():
            country, _, area = value.partition("/")
            regions.setdefault(_norm(code), (country, area or area_of.get(country, "")))
    return {
        "regions": regions,
        "areas": {a: set(m) for a, m in raw["areas"].items()},
        "area_of": area_of,
        "geos": countries_geos,
        "geo_names": {_norm(g) for g in raw["geographies"]},
        "aliases": {_norm(k): v for k, v in raw["aliases"].items()},
        "names": raw["country_names"],
    }


def _country_place(code: str, country: str, area: str = "") -> Place:
    v = _vocabulary()
    country = country.upper()
    geos = frozenset(v["geos"].get(country, set()))
    return Place(code, country, area or v["area_of"].get(country, ""), geos)


def place_of(region: str) -> Place | None:
    """Where a region code is (None when the vocabulary does not know it)."""
    v = _vocabulary()
    code = _norm(region)
    if not code:
        return None
    if code in v["regions"]:
        country, area = v["regions"][code]
        return _country_place(code, country, area)
    if code in v["areas"]:  # our own vocabulary: "eu-west" is in Europe, "us-east" in the US
        members = v["areas"][code]
        shared = set.intersection(*(v["geos"].get(c, set()) for c in members))
        return Place(code, "", code, frozenset(shared))
    if re.fullmatch(r"us-(east|west|central|south)", code):
        return Place(code, "", code, frozenset(v["geos"]["US"]))
    runpod = RUNPOD_ID.match(code)
    if runpod:
        prefix, middle = runpod.groups()
        country = {"us": "US", "ca": "CA"}.get(prefix, middle.upper())
        return _country_place(code, country)
    alias = v["aliases"].get(code, "")
    if (len(code) == 2 and code.upper() in v["names"]) or len(alias) == 2:
        return _country_place(code, (alias or code).upper())
    return None


def _geo_within(inner: str, outer: str) -> bool:
    v = _vocabulary()
    if outer not in v["geo_names"]:
        return False
    members = {c for c, geos in v["geos"].items() if inner in geos}
    return all(outer in v["geos"][c] for c in members)


def is_geography(name: str) -> bool:
    """A geography name or alias the vocabulary knows (EU, Europe, US, APAC, ...)."""
    v = _vocabulary()
    token = _norm(v["aliases"].get(_norm(name), name))
    return token in v["geo_names"] or token in ("us", "gb")


def _matches(place: Place, token: str) -> bool:
    v = _vocabulary()
    token = _norm(token)
    alias = v["aliases"].get(token)
    if alias:
        token = _norm(alias)
    if token == place.code:
        return True
    if token in v["geo_names"]:
        return token in place.geographies
    if len(token) == 2:
        return bool(place.country) and token == place.country.lower()
    if token in v["areas"] or re.fullmatch(r"us-(east|west|central|south)", token):
        return token == place.area
    other = place_of(token)
    return other is not None and bool(other.country) and other.country == place.country


def boundary_reason(regions: Iterable[str], allowed: Iterable[str]) -> str | None:
    """None when every region is inside the allowed set (or none is set); else why not,
    naming the region that failed and the allowed set."""
    allowed = [a for a in allowed if a and a.strip()]
    if not allowed:
        return None
    wanted = ", ".join(allowed)
    regions = [r for r in regions if r and r.strip()]
    if not regions:
        return f"states no region, so it cannot be shown to be inside {wanted}"
    v = _vocabulary()
    names = v["names"]
    for region in regions:
        geo = _norm(v["aliases"].get(_norm(region), region))
        if geo in v["geo_names"]:  # a whole geography: inside only a geography containing it
            if not any(_geo_within(geo, _norm(v["aliases"].get(_norm(a), a))) for a in allowed):
                return f"region {region} (a whole geography) is wider than the allowed {wanted}"
            continue
        place = place_of(region)
        if place is None:
            if any(_norm(region) == _norm(a) for a in allowed):
                continue
            return f"region {region} is not in the region vocabulary, so not shown inside {wanted}"
        if not any(_matches(place, a) for a in allowed):
            return f"region {region} ({place.label(names)}) is outside the allowed regions {wanted}"
    return None


def region_allowed(region: str, allowed: Iterable[str]) -> bool:
    return boundary_reason([region], allowed) is None
