"""Explicit name tables: how outside files name providers and models, mapped to the catalog.

Only names listed here are mapped; anything else is reported as unknown, never guessed. Which
GPU a file's row is, is decided in `catalog.importers.identity`.
"""

from __future__ import annotations

import re

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
    return [key for key in dict.fromkeys(normalise_name(name) for name in names) if key]


def normalise_name(name: str) -> str:
    """Lower-case letters and digits only: "A100-80GB" → "a10080gb"."""
    return re.sub(r"[^a-z0-9]", "", name.lower())


def model_profile_slug_for(model_name: str, profile_slugs: frozenset[str] | set[str]) -> str | None:
    """The catalog model profile a model API serves, if its name contains the profile's.

    "together_ai/meta-llama/Llama-3.3-70B-Instruct-Turbo" contains "llama3370b"; the longest
    match wins so "qwen2-5-72b" is not taken for "qwen2-5-7b".
    """
    haystack = normalise_name(model_name)
    matches = [s for s in profile_slugs if normalise_name(s) and normalise_name(s) in haystack]
    return max(matches, key=lambda s: len(normalise_name(s))) if matches else None
