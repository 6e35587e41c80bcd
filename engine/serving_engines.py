"""Serving engines: one name per engine, their major versions, and which cache prefixes.

Pure (docs/engine/evidence.md, "Serving engine", and cost-model.md, "Prefix caching").

- **One name.** Uploads and briefs spell engines freely ("vLLM", "vllm-openai", "TRT-LLM",
  "tensorrt_llm", "text-generation-inference"); ``canonical`` reads them as one key each, so
  two spellings of one engine are the same engine. A name not in the table keeps its own
  normalised spelling (it is compared as written, never guessed to be another engine).
- **Major version.** ``major_version`` follows Semantic Versioning 2.0.0 (semver.org): the
  first number, except that below 1.0 "anything MAY change at any time" (§4), so a 0.y
  release is its own major ("0.6.3.post1" → "0.6"; "1.2.0" → "1"). vLLM, SGLang and
  TensorRT-LLM have changed kernels and schedulers between 0.y releases.
- **Prefix caching.** The engines below reuse the KV cache of a prompt prefix already seen,
  so the cached share of input tokens skips prefill: vLLM's automatic prefix caching, SGLang's
  RadixAttention, TensorRT-LLM's KV cache reuse and TGI's prefix caching (from v3), each with
  the public page that describes it. An engine not listed is not assumed to cache.
"""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class ServingEngine:
    key: str  # the one spelling
    name: str  # as a reader writes it
    aliases: tuple[str, ...]
    prefix_caching: str = ""  # the engine's name for it ("" : not known to cache prefixes)
    prefix_caching_since: int | None = None  # first major version with it (None: every)
    source: str = ""


ENGINES: tuple[ServingEngine, ...] = (
    ServingEngine(
        "vllm",
        "vLLM",
        ("vllm", "vllm-openai", "vllm-serve"),
        "automatic prefix caching",
        None,
        "https://docs.vllm.ai/en/latest/features/automatic_prefix_caching.html",
    ),
    ServingEngine(
        "sglang",
        "SGLang",
        ("sglang", "sgl"),
        "RadixAttention",
        None,
        "https://arxiv.org/abs/2312.07104 (Zheng et al., SGLang, 2024)",
    ),
    ServingEngine(
        "tensorrt-llm",
        "TensorRT-LLM",
        ("tensorrt-llm", "tensorrtllm", "trt-llm", "trtllm", "tensorrt", "triton-trtllm"),
        "KV cache reuse",
        None,
        "https://nvidia.github.io/TensorRT-LLM/advanced/kv-cache-reuse.html",
    ),
    ServingEngine(
        "tgi",
        "TGI",
        ("tgi", "text-generation-inference", "hf-tgi"),
        "prefix caching",
        3,
        "https://huggingface.co/docs/text-generation-inference/conceptual/chunking",
    ),
    ServingEngine("lmdeploy", "LMDeploy", ("lmdeploy",)),
    ServingEngine("llama-cpp", "llama.cpp", ("llama-cpp", "llamacpp", "llama-server")),
    ServingEngine("ollama", "Ollama", ("ollama",)),
)
_BY_ALIAS = {alias: engine for engine in ENGINES for alias in engine.aliases}
_SEPARATORS = re.compile(r"[\s_./]+")
_VERSION = re.compile(r"(\d+)(?:\.(\d+))?")


def _normalised(name: str) -> str:
    text = _SEPARATORS.sub("-", (name or "").strip().lower()).strip("-")
    return re.sub(r"-+", "-", text)


def engine_of(name: str) -> ServingEngine | None:
    """The table's engine a free-text name means (None: not in the table, or blank)."""
    return _BY_ALIAS.get(_normalised(name))


def canonical(name: str) -> str:
    """One key per engine ("" when blank): 'TRT-LLM' and 'tensorrt_llm' → 'tensorrt-llm'."""
    found = engine_of(name)
    return found.key if found is not None else _normalised(name)


def display_name(name: str) -> str:
    found = engine_of(name)
    return found.name if found is not None else (name or "").strip()


def major_version(version: str) -> str:
    """The SemVer major of a version string ("" when it has no number); 0.y is its own."""
    found = _VERSION.search(str(version or ""))
    if found is None:
        return ""
    major, minor = found.group(1), found.group(2)
    if int(major) == 0:
        return f"0.{int(minor)}" if minor is not None else "0"
    return str(int(major))


@dataclass(frozen=True, slots=True)
class PrefixCaching:
    """Whether the row's serving engine skips prefill on cached prefixes, in words."""

    applies: bool
    words: str
    source: str = ""


def prefix_caching(engine: str, version: str = "") -> PrefixCaching:
    """Does ``engine`` (at ``version``, "" : its current release) cache prompt prefixes?"""
    if not (engine or "").strip():
        return PrefixCaching(False, "no serving engine is stated (brief or benchmark)")
    found = engine_of(engine)
    if found is None or not found.prefix_caching:
        return PrefixCaching(False, f"{display_name(engine)} is not known to cache prefixes")
    major = major_version(version)
    since = found.prefix_caching_since
    if since is not None and major and float(major) < since:
        return PrefixCaching(
            False,
            f"{found.name} {version} predates its {found.prefix_caching} (from {since}.0)",
        )
    return PrefixCaching(
        True, f"{found.name} caches prefixes ({found.prefix_caching})", found.source
    )
