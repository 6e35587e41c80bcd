"""Model names as results and briefs write them: normalised, their size, family and whether
they are a mixture of experts (the evidence rules compare results by these)."""

from __future__ import annotations

import re

_SIZE = re.compile(r"(?<![a-z0-9.])(\d+(?:\.\d+)?)\s*b(?![a-z])")
_SUFFIXES = re.compile(r"-(instruct|chat|it|hf|base)$")
_MOE_ACTIVE = re.compile(r"(?:^|-)a(\d+(?:-\d+)?)b(?:-|$)")  # Qwen3-30B-A3B, …-A2.7B
_MOE_WORDS = re.compile(r"(?:^|-)(moe|mixtral|deepseek-v[23]|\d+x\d+b)(?:-|$)")


def normalise_model(name: str) -> str:
    """'meta-llama/Llama-3.1-70B-Instruct', 'Llama 3.1 70B', 'llama-3-1-70b' → 'llama-3-1-70b'."""
    text = (name or "").strip().lower().split("/")[-1]
    text = re.sub(r"[\s._]+", "-", text)
    text = text.replace("meta-llama-", "llama-").removeprefix("meta-")
    while True:
        stripped = _SUFFIXES.sub("", text)
        if stripped == text:
            return text
        text = stripped


def same_model_name(one: str, other: str) -> bool:
    """Both names given and equal once normalised."""
    return bool(one and other) and normalise_model(one) == normalise_model(other)


def params_from_name(name: str) -> float | None:
    """The parameter count (billions) written in a model name ('…-70B-…' → 70.0)."""
    text = (name or "").strip().lower().split("/")[-1]
    found = _SIZE.findall(re.sub(r"[-_]", " ", text))
    return float(found[-1]) if found else None


def family_of(name: str) -> str:
    """The family with its major version: the normalised name's leading letters and first
    number ('Llama-3.1-70B' → 'llama-3', 'Llama-2-70b' → 'llama-2', 'Qwen3-32B' → 'qwen3',
    'Qwen2.5-7B' → 'qwen2'): Llama 2 is not Llama 3.1, Qwen2.5 is not Qwen3, while Llama
    3.3 70B keeps Llama 3.1 70B's architecture."""
    match = re.match(r"[a-z]+(?:-?\d+(?![\db]))?", normalise_model(name))
    return match.group(0) if match else ""


def moe_active_from_name(name: str) -> float | None:
    """Active parameters written in a mixture-of-experts name ('Qwen3-30B-A3B' → 3.0)."""
    found = _MOE_ACTIVE.search(normalise_model(name))
    return float(found.group(1).replace("-", ".")) if found else None


def is_moe_name(name: str) -> bool:
    text = normalise_model(name)
    return bool(_MOE_ACTIVE.search(text) or _MOE_WORDS.search(text))
