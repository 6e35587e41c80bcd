"""Which catalog accelerator an MLPerf systems JSON names, or why none.

MLPerf writes "NVIDIA H100-SXM-80GB", "NVIDIA H100-NVL-94GB", "NVIDIA GH200 Grace Hopper
Superchip 144GB", "AMD Instinct MI300X-NPS1-SPX-192GB-750W". The chip, the form factor and the
memory must all agree with exactly one catalog entry; a GH200 with 144 GB is not the catalog's
96 GB GH200 however close, so it is refused with a reason rather than guessed.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from .names import normalise_name

# Words that say who made it or how it was partitioned or cooled, not which card it is.
_NOISE = re.compile(
    r"\b(nvidia|amd|intel|instinct|grace hopper superchip|superchip|nps\d|spx|cpx|cts|maxq"
    r"|\d+\s*w)\b",
    re.I,
)
_MEMORY = re.compile(r"(\d+)\s*g(?:b|ib)?\b", re.I)
_FORM = re.compile(r"\b(sxm\d?|pcie|nvl|oam|hgx)\b", re.I)


@dataclass(frozen=True)
class AcceleratorMatch:
    slug: str | None
    reason: str  # why this entry, or why none


def _chip(text: str) -> str:
    text = re.sub(r"\(.*?\)", " ", text)  # the catalog's "GH200 (Hopper GPU) 96GB"
    without = _FORM.sub(
        " ", _MEMORY.sub(" ", _NOISE.sub(" ", text.replace("-", " ").replace("_", " ")))
    )
    return normalise_name(without)


def _form(text: str) -> str:
    found = _FORM.search(text.replace("-", " ").replace("_", " "))
    if not found:
        return ""
    word = found.group(1).lower()
    return "sxm" if word.startswith("sxm") or word == "hgx" else word


def catalog_accelerator_for(
    mlperf_name: str, entries: Iterable[Mapping[str, Any]]
) -> AcceleratorMatch:
    """The catalog slug for an MLPerf accelerator name, given the catalog's entries.

    `entries` are catalog/data/accelerators.json objects (slug, name, form_factor, memory_gb).
    """
    name = mlperf_name.strip()
    if not name or name.upper() == "N/A":
        return AcceleratorMatch(None, "no accelerator named.")
    chip = _chip(name)
    memory = _MEMORY.search(name.replace("-", " "))
    memory_gb = int(memory.group(1)) if memory else None
    form = _form(name)
    same_chip = [e for e in entries if _chip(str(e.get("name", ""))) == chip]
    if not same_chip:
        return AcceleratorMatch(None, f"no catalog accelerator is a {chip.upper() or name!r}.")
    fits = [
        e
        for e in same_chip
        if (memory_gb is None or round(float(e.get("memory_gb") or 0)) == memory_gb)
        and (
            not form
            or _form(str(e.get("form_factor", "")) + " " + str(e.get("name", ""))) in (form, "")
        )
    ]
    if form:  # a named form factor must be the entry's own, not merely unstated there
        exact = [
            e
            for e in fits
            if _form(str(e.get("form_factor", "")) + " " + str(e.get("name", ""))) == form
        ]
        fits = exact or fits
    if len(fits) == 1:
        return AcceleratorMatch(str(fits[0]["slug"]), f"{name!r} is {fits[0]['name']}.")
    listed = ", ".join(sorted(str(e["slug"]) for e in same_chip))
    if not fits:
        wanted = " ".join(x for x in (form.upper(), f"{memory_gb} GB" if memory_gb else "") if x)
        return AcceleratorMatch(None, f"{name!r}: the catalog lists {listed}, none {wanted}.")
    return AcceleratorMatch(
        None, f"{name!r} could be any of {listed}; refused rather than guessed."
    )
