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
    "a100sxm": "a100-sxm-40gb",
    "a100pcie": "a100-pcie-40gb",
    "a10040gbpcie": "a100-pcie-40gb",
    "a10080gbpcie": "a100-pcie-80gb",
    "a100pcie80gb": "a100-pcie-80gb",
    "h100sxm80gb": "h100-sxm-80gb",
    "h100pcie80gb": "h100-pcie-80gb",
    "h100nvlpcie": "h100-nvl-94gb",
    "a10g": "a10g-24gb",
    "a10": "a10-24gb",
    "a10pcie": "a10-24gb",
    "a10gpcie": "a10g-24gb",
    "t4": "t4-16gb",
    "t4pcie": "t4-16gb",
    "v100": "v100-sxm2-16gb",
    "v10016gb": "v100-sxm2-16gb",
    "v100sxm2": "v100-sxm2-16gb",
    "v10032gb": "v100-sxm2-32gb",
    "v100sxm232gb": "v100-sxm2-32gb",
    "l40": "l40-48gb",
    "l40pcie": "l40-48gb",
    "l4pcie": "l4-24gb",
    "l40spcie": "l40s-48gb",
    "a6000": "rtx-a6000-48gb",
    "rtxa6000": "rtx-a6000-48gb",
    "a6000pcie": "rtx-a6000-48gb",
    "gh200": "gh200-96gb",
    "gh20096gb": "gh200-96gb",
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


_SXM_TOKENS = re.compile(r"(sxm\d?|hbm\de?)")
# Cards sold in one form factor only: a PCIe/NVL hint does not change them.
_PCIE_ONLY = frozenset({"l4", "l40", "l40s", "a10", "a10g", "t4", "a6000", "rtxa6000"})
# LiteLLM `litellm_provider` ids whose catalog provider slug differs beyond `_` → `-`.
LITELLM_PROVIDER_ALIASES: dict[str, tuple[str, ...]] = {
    "lambda_ai": ("lambda", "lambda-ai", "lambda-labs"),
    "together_ai": ("together-ai", "together"),
    "fireworks_ai": ("fireworks-ai", "fireworks"),
    "vertex_ai": ("gcp", "google", "google-cloud"),
    "gemini": ("google", "gemini", "google-ai-studio"),
    "bedrock": ("aws", "amazon-bedrock"),
    "bedrock_converse": ("aws", "amazon-bedrock"),
    "azure": ("azure", "microsoft-azure"),
    "azure_ai": ("azure", "microsoft-azure"),
    "nebius": ("nebius", "nebius-ai-studio"),
    "deepinfra": ("deepinfra", "deep-infra"),
    "mistral": ("mistral", "mistral-ai"),
}


# LiteLLM files models served on Google Cloud's Vertex AI under `vertex_ai-<group>` ids: the
# group names the model's publisher (Claude on Vertex is a Google Cloud route for Anthropic's
# model); Google's own groups are split by task.
VERTEX_PREFIX = "vertex_ai-"
VERTEX_PUBLISHERS: dict[str, str] = {
    "anthropic_models": "Anthropic",
    "llama_models": "Meta",
    "mistral_models": "Mistral AI",
    "ai21_models": "AI21 Labs",
    "deepseek_models": "DeepSeek",
    "qwen_models": "Alibaba Cloud (Qwen)",
    "openai_models": "OpenAI",
    "meta_models": "Meta",
}


def base_provider(litellm_provider: str) -> str:
    """ "vertex_ai-anthropic_models" → "vertex_ai"; other ids unchanged (lower-cased)."""
    raw = litellm_provider.strip().lower()
    return "vertex_ai" if raw.startswith(VERTEX_PREFIX) else raw


def publisher_for(litellm_provider: str) -> str:
    """Who publishes the models of a reseller's LiteLLM group ("" for the provider's own)."""
    raw = litellm_provider.strip().lower()
    if not raw.startswith(VERTEX_PREFIX):
        return ""
    group = raw[len(VERTEX_PREFIX) :]
    if group in VERTEX_PUBLISHERS:
        return VERTEX_PUBLISHERS[group]
    if group.endswith("_models"):  # a publisher's group LiteLLM added later
        return group[: -len("_models")].replace("_", " ").title()
    return "Google"  # language-, chat-, text-, code-, vision-models: Google's own


def provider_candidates(litellm_provider: str) -> list[str]:
    """Normalised names a catalog provider's slug or name may have for a LiteLLM provider id.

    "lambda_ai" → ["lambdaai", "lambda", "lambdalabs"]: the id itself, the listed aliases and
    the id without its "_ai" suffix, each lower-case letters and digits only.
    """
    raw = base_provider(litellm_provider)
    names = [raw, *LITELLM_PROVIDER_ALIASES.get(raw, ())]
    if raw.endswith("_ai"):
        names.append(raw[: -len("_ai")])
    out: list[str] = []
    for name in names:
        if normalise_name(name) and normalise_name(name) not in out:
            out.append(normalise_name(name))
    return out


def normalise_name(name: str) -> str:
    """Lower-case letters and digits only: "A100-80GB" → "a10080gb"."""
    return re.sub(r"[^a-z0-9]", "", name.lower())


def accelerator_slug_for(
    name: str, known_slugs: frozenset[str] | set[str], *, form_factor: str = ""
) -> str | None:
    """A catalog slug for a file's accelerator name: the slug itself, or a listed alias.

    With a form factor ("pcie", "nvl", "sxm") from elsewhere in the file, the name plus the
    form factor must be listed ("A100-80GB" + PCIe → a100-pcie-80gb); a PCIe or NVL card
    whose variant is not listed is unknown rather than taken for the SXM card.
    """
    cleaned = name.strip().lower()
    if cleaned in known_slugs:
        return cleaned
    base = normalise_name(name)
    if form_factor == "sxm" and base not in ACCELERATOR_ALIASES:
        # "A100-80GB-SXM4", "H100-80GB-HBM3": the SXM card under its plain name
        base = _SXM_TOKENS.sub("", base) or base
    if form_factor in ("pcie", "nvl") and base not in _PCIE_ONLY and form_factor not in base:
        slug = ACCELERATOR_ALIASES.get(base + form_factor)
        if slug is None and base.endswith("gb"):  # "a10080gb" + pcie → "a100pcie80gb"
            size = re.search(r"\d+gb$", base)
            if size:
                slug = ACCELERATOR_ALIASES.get(base[: size.start()] + form_factor + size.group())
        return slug if slug in known_slugs else None
    slug = ACCELERATOR_ALIASES.get(base)
    return slug if slug in known_slugs else None


def model_profile_slug_for(model_name: str, profile_slugs: frozenset[str] | set[str]) -> str | None:
    """The catalog model profile a model API serves, if its name contains the profile's.

    "together_ai/meta-llama/Llama-3.3-70B-Instruct-Turbo" contains "llama3370b"; the longest
    match wins so "qwen2-5-72b" is not taken for "qwen2-5-7b".
    """
    haystack = normalise_name(model_name)
    matches = [s for s in profile_slugs if normalise_name(s) and normalise_name(s) in haystack]
    return max(matches, key=lambda s: len(normalise_name(s))) if matches else None
