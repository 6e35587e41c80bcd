"""Which model profile a benchmark file's model name means, and the precision its name or
its metadata states. Pure: strings in, a match out (docs/engine/evidence.md, "Model names").

A name is reduced to a key of letters and digits after dropping what does not change the
weights' architecture:

- the organisation or path prefix (``meta-llama/``, ``RedHatAI/``, ``/data/models/``) and a
  leading ``meta-`` (``Meta-Llama-3.1-70B`` is ``Llama-3.1-70B``);
- the Ollama tag colon (``llama3.1:70b`` is ``llama3.1-70b``);
- "instruct"/"chat" anywhere and a trailing "it"/"hf"/"base"/"latest"/"turbo";
- a quantisation suffix and everything after it (``-FP8``, ``-AWQ``, ``-GPTQ-INT4``,
  ``-q4_K_M``), which also gives the precision the weights were stored in.

``llama3.1:70b``, ``meta-llama/Llama-3.1-70B-Instruct`` and
``RedHatAI/Meta-Llama-3.1-70B-Instruct-FP8`` all reduce to ``llama3170b``. A profile
answers to the keys of its slug, its name and each of its aliases; a key claimed by two
profiles matches neither (the upload then asks, never guesses).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

# The brief's vocabulary (briefs.models.Precision, engine/precision.py): what a
# result is compared on.
_PRECISION_WORDS: Mapping[str, str] = {
    "fp32": "fp32",
    "float32": "fp32",
    "float": "fp32",
    "bf16": "bf16",
    "bfloat16": "bf16",
    "fp16": "fp16",
    "float16": "fp16",
    "half": "fp16",
    "f16": "fp16",
    "fp8": "fp8",
    "float8": "fp8",
    "fp8-dynamic": "fp8",
    "fp8-e4m3": "fp8",
    "fp8_e4m3": "fp8",
    "fp8-e5m2": "fp8",
    "fp8_e5m2": "fp8",
    "modelopt": "fp8",
    "int8": "int8",
    "w8a8": "int8",
    "w8a16": "int8",
    "q8": "int8",
    "q8-0": "int8",
    "q8_0": "int8",
    "int4": "int4",
    "w4a16": "int4",
    "awq": "int4",
    "gptq": "int4",
    "bnb-4bit": "int4",
    "4bit": "int4",
    "q4": "int4",
    "fp4": "fp4",
    "nvfp4": "fp4",
    "mxfp4": "fp4",
}
# Name tokens that start a quantisation suffix; those missing above name no precision of
# the vocabulary (Q5/Q6 GGUF, "quantized"): the suffix is dropped, the precision asked.
_QUANT_TOKENS = (frozenset(_PRECISION_WORDS) - {"float", "half"}) | {
    "q2",
    "q3",
    "q5",
    "q6",
    "gguf",
    "quantized",
    "dynamic",
    "e4m3",
    "e5m2",
    "8bit",
}
_ANYWHERE = frozenset({"instruct", "chat"})
_TRAILING = frozenset({"it", "hf", "base", "latest", "turbo"})
_SEPARATORS = re.compile(r"[\s._:\-]+")


@dataclass(frozen=True, slots=True)
class ProfileNames:
    """One model profile and every name it answers to (slug, name, aliases)."""

    profile_id: int
    names: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class NameMatch:
    """The profile a name means (None: unknown or ambiguous) and the precision its
    quantisation suffix states ("" when it states none)."""

    profile_id: int | None
    precision: str = ""


def precision_from_word(value: object) -> str:
    """A precision of the vocabulary from a file's dtype/quantisation value ("" if unknown):
    'bfloat16' → 'bf16', 'AWQ' → 'int4', 'auto' → ''."""
    if not isinstance(value, str):
        return ""
    word = value.strip().lower()
    return _PRECISION_WORDS.get(word) or _PRECISION_WORDS.get(word.replace("_", "-"), "")


def _tokens(name: str) -> list[str]:
    text = (name or "").strip().lower().replace("\\", "/").rstrip("/").split("/")[-1]
    return [t for t in _SEPARATORS.split(text) if t]


def _split_quant(tokens: list[str]) -> tuple[list[str], str]:
    """(the tokens before a quantisation suffix, the precision the suffix states)."""
    for index, token in enumerate(tokens):
        if index and token in _QUANT_TOKENS:
            tail = tokens[index:]
            for size in (2, 1):  # "fp8-dynamic" before "fp8"
                word = precision_from_word("-".join(tail[:size]))
                if word:
                    return tokens[:index], word
            return tokens[:index], ""
    return tokens, ""


def name_key(name: str) -> tuple[str, str]:
    """(the comparison key of a model name, the precision its suffix states)."""
    tokens, precision = _split_quant(_tokens(name))
    if tokens and tokens[0] == "meta" and len(tokens) > 1:
        tokens = tokens[1:]
    tokens = [t for t in tokens if t not in _ANYWHERE]
    while len(tokens) > 1 and tokens[-1] in _TRAILING:
        tokens.pop()
    return "".join(tokens), precision


def precision_in_name(name: str) -> str:
    """The precision a model name's quantisation suffix states ('…-70B-Instruct-FP8' → 'fp8')."""
    return name_key(name)[1]


def resolve_model(name: str, profiles: Iterable[ProfileNames]) -> NameMatch:
    """The profile whose slug, name or alias has the same key as ``name`` (see the module
    docstring); None when no profile or more than one does."""
    key, precision = name_key(name)
    if not key:
        return NameMatch(None, precision)
    found = {
        profile.profile_id
        for profile in profiles
        if any(name_key(known)[0] == key for known in profile.names if known)
    }
    return NameMatch(found.pop() if len(found) == 1 else None, precision)


def clean_aliases(values: Iterable[object]) -> list[str]:
    """Aliases as stored: trimmed, non-empty, at most 200 characters, each once (case
    ignored). Spellings with the same key are kept: the page lists the ids people search."""
    out: list[str] = []
    seen: set[str] = set()
    for value in values:
        text = str(value or "").strip()[:200]
        if text and name_key(text)[0] and text.lower() not in seen:
            seen.add(text.lower())
            out.append(text)
    return out
