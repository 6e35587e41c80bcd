"""Explicit name tables: how outside files name accelerators, mapped to catalog slugs.

Only names listed here are mapped; anything else is reported as unknown, never guessed.
"""

from __future__ import annotations

import re

# SkyPilot `AcceleratorName` values (catalogs/v5..v8 `common/accelerators.csv`) and the
# names people type in price lists, normalised by `normalise_name`.
ACCELERATOR_ALIASES: dict[str, str] = {
    "h100": "h100-sxm-80gb",
    "h100sxm": "h100-sxm-80gb",
    "h100sxm5": "h100-sxm-80gb",
    "h10080gb": "h100-sxm-80gb",
    "h100mega": "h100-sxm-80gb",
    "h100nvlink": "h100-sxm-80gb",
    "h100pcie": "h100-pcie-80gb",
    "h100nvl": "h100-nvl-94gb",
    "h200": "h200-sxm-141gb",
    "h200sxm": "h200-sxm-141gb",
    "h200nvl": "h200-nvl-141gb",
    "b200": "b200-hgx-180gb",
    "b300": "b300-hgx-288gb",
    "gb200": "gb200-per-gpu-186gb",
    "a100": "a100-sxm-40gb",
    "a10040gb": "a100-sxm-40gb",
    "a10080gb": "a100-sxm-80gb",
    "a10080gbsxm": "a100-sxm-80gb",
    "a100sxm80gb": "a100-sxm-80gb",
    "l40s": "l40s-48gb",
    "l4": "l4-24gb",
    "rtx4090": "rtx-4090-24gb",
    "rtx5090": "rtx-5090-32gb",
    "rtx6000ada": "rtx-6000-ada-48gb",
    "rtxpro6000": "rtx-pro-6000-blackwell-ws-96gb",
    "rtxpro6000blackwell": "rtx-pro-6000-blackwell-ws-96gb",
    "mi300x": "mi300x-192gb",
    "mi325x": "mi325x-256gb",
    "mi355x": "mi355x-288gb",
    "gaudi3": "gaudi-3-oam-128gb",
}


def normalise_name(name: str) -> str:
    """Lower-case letters and digits only: "A100-80GB" → "a10080gb"."""
    return re.sub(r"[^a-z0-9]", "", name.lower())


def accelerator_slug_for(name: str, known_slugs: frozenset[str] | set[str]) -> str | None:
    """A catalog slug for a file's accelerator name: the slug itself, or a listed alias."""
    cleaned = name.strip().lower()
    if cleaned in known_slugs:
        return cleaned
    slug = ACCELERATOR_ALIASES.get(normalise_name(name))
    return slug if slug in known_slugs else None


def model_profile_slug_for(model_name: str, profile_slugs: frozenset[str] | set[str]) -> str | None:
    """The catalog model profile a model API serves, if its name contains the profile's.

    "together_ai/meta-llama/Llama-3.3-70B-Instruct-Turbo" contains "llama3370b"; the longest
    match wins so "qwen2-5-72b" is not taken for "qwen2-5-7b".
    """
    haystack = normalise_name(model_name)
    matches = [s for s in profile_slugs if normalise_name(s) and normalise_name(s) in haystack]
    return max(matches, key=lambda s: len(normalise_name(s))) if matches else None
