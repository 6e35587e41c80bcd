"""The serving setup a result ran, against the brief's: serving engine, its major version and
the KV-cache precision (pure; used by ``engine.evidence``'s matching rules).

A result that ran another setup is at most a **proxy**, its difference stated, its throughput
kept as measured: no public factor carries one engine's tokens/s to another's (kernels,
schedulers and batching differ; SemiAnalysis's InferenceMAX reports each engine apart), and a
KV-cache precision changes throughput by an amount that depends on the context and the batch.
The proxy's wider spread is what covers the difference.

- **Serving engine**: compared when the brief names one (``serving_engine``); spellings are
  read as one engine (``engine.serving_engines.canonical``). A result that does not record
  its engine cannot be shown to match and is a proxy; a brief naming none takes any.
- **Major version**: compared when the brief and the result both state a version, by
  SemVer's major (0.y is its own, ``engine.serving_engines.major_version``).
- **KV-cache precision**: compared when the file states one (vLLM and SGLang
  ``--kv-cache-dtype``; "auto" follows the model's dtype and states nothing).

A side is ``(engine, version, kv_precision)``, each "" when not stated.
"""

from __future__ import annotations

from engine.precision import PRECISIONS
from engine.serving_engines import canonical, display_name, major_version

Setup = tuple[str, str, str]  # (serving engine, its version, KV-cache precision)

# KV-cache dtypes as engines spell them → the brief's words: the precision ids themselves and
# the engines' own names for them.
_KV_WORDS = {
    **{name: name for name in PRECISIONS},
    **dict.fromkeys(("fp8-e4m3", "fp8-e5m2", "fp8-e4m3fn"), "fp8"),
    **dict.fromkeys(("float16", "half"), "fp16"),
    "bfloat16": "bf16",
    "float32": "fp32",
    "nvfp4": "fp4",
}


def kv_precision_word(value: str) -> str:
    """A KV-cache dtype in the brief's vocabulary ("" : not stated, "auto" or unknown)."""
    text = (value or "").strip().lower().replace("_", "-")
    return _KV_WORDS.get(text, "")


def _engine_difference(result: Setup, target: Setup) -> str | None:
    wanted, theirs = canonical(target[0]), canonical(result[0])
    if not wanted:
        return None
    ours = display_name(target[0])
    if not theirs:
        return f"serving engine not recorded; the brief serves with {ours}"
    if theirs != wanted:
        return f"measured with {display_name(result[0])}, the brief serves with {ours}"
    ours_major, their_major = major_version(target[1]), major_version(result[1])
    if ours_major and their_major and ours_major != their_major:
        return (
            f"measured with {ours} {result[1].strip()}, the brief serves with {ours} "
            f"{target[1].strip()} (another major version)"
        )
    return None


def _kv_difference(result: Setup, target: Setup) -> str | None:
    theirs, ours = kv_precision_word(result[2]), kv_precision_word(target[2])
    if theirs and ours and theirs != ours:
        return f"KV cache at {theirs}, the brief's is {ours}"
    return None


def setup_differences(result: Setup, target: Setup) -> list[str]:
    """Where the result's serving setup differs from the brief's (empty: the same, or not
    compared)."""
    found = (_engine_difference(result, target), _kv_difference(result, target))
    return [d for d in found if d]


def setup_adjustments(result: Setup, target: Setup) -> list[str]:
    """What a proxy of another setup does with its throughput, in words."""
    out = []
    if _engine_difference(result, target):
        out.append(
            "throughput kept as measured on the other serving engine or version (no public "
            "factor carries one to the other); the proxy's spread widens"
        )
    if _kv_difference(result, target):
        out.append(
            "throughput kept as measured at the other KV-cache precision (its effect depends "
            "on the context and the batch); the proxy's spread widens"
        )
    return out
