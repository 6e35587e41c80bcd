"""Model names as benchmark files and catalogs spell them, read one way. Pure: no Django.

The evidence matching (procurement/engine/evidence.py) and the upload's warning that a file
measured another model than its brief's (benchmarks) read names the same way, so the page
never warns about a result the comparison would count, nor stays silent about one it ignores.
"""

from __future__ import annotations

import re

_SUFFIXES = re.compile(r"-(instruct|chat|it|hf|base)$")


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
