"""What a GenAI-Perf or AIPerf input config says about the model measured and its precision.

Both tools copy their command line into the export's ``input_config`` (FORMATS.md §2.1, §3.1):

- the model names: GenAI-Perf ``model_names`` (config-file layout, ≥ Mar 2025) or ``model``
  (flat layout); AIPerf ``endpoint.model_names`` (v0.1), ``models.items[].name`` (schema 1.3),
  else ``endpoint.model_name``; the ``cli_command``'s ``-m`` / ``--model`` /
  ``--model-names`` only when none of these is there. A comma-separated entry is several
  names (``--model-names a,b``): the tools spread the requests over them.
- a precision stated in words: a key named ``precision``, ``quantization``,
  ``weight_precision`` or ``dtype`` anywhere in the config, the extra inputs sent with each
  request included (``extra_inputs``, ``input.extra``: a mapping, ``name:value`` strings or
  ``[name, value]`` pairs).

Found values go to ``extra``: ``config_model_names`` (every name, when there are several),
``config_<key>`` and ``config_precision_source`` (where the first statement was read). Turning
a word or a model name's quantisation suffix into the brief's vocabulary is the upload's job
(``benchmarks/services/results.py``); a parser stays free of the catalog's vocabulary.
"""

from __future__ import annotations

import shlex
from collections.abc import Iterator
from typing import Final

from ._util import Builder, get_path

# The most specific first: a quantisation method says more than the activations' dtype.
PRECISION_KEYS: Final = ("precision", "quantization", "weight_precision", "dtype")
_MAX_DEPTH: Final = 8
_MAX_NODES: Final = 5000
_MODEL_FLAGS: Final = ("-m", "--model", "--model-names", "--model-name")


def _names(value: object) -> list[str]:
    """A model-name entry as names: a string (comma-separated allowed) or a list of them, or
    AIPerf 0.10's ``{"name": …}`` items."""
    items = value if isinstance(value, list) else [value]
    out: list[str] = []
    for item in items:
        if isinstance(item, dict):
            item = item.get("name")
        if isinstance(item, str):
            out.extend(part.strip() for part in item.split(",") if part.strip())
    return out


def _from_command(command: object) -> list[str]:
    """The ``-m`` / ``--model`` values of the recorded command line (``cli_command``)."""
    if not isinstance(command, str) or len(command) > 20_000:
        return []
    try:
        words = shlex.split(command)
    except ValueError:  # unbalanced quotes: the line says nothing reliable
        return []
    out: list[str] = []
    for i, word in enumerate(words):
        flag, _, inline = word.partition("=")
        if flag not in _MODEL_FLAGS:
            continue
        value = inline if inline else (words[i + 1] if i + 1 < len(words) else "")
        if value and not value.startswith("-"):
            out.extend(_names(value))
    return out


def model_names(config: object) -> list[str]:
    """Every model the config names, in order, each once ([] when it names none)."""
    found: list[str] = []
    for path in (
        ("model_names",),
        ("model",),
        ("endpoint", "model_names"),
        ("models", "items"),
        ("endpoint", "model_name"),
    ):
        found = _names(get_path(config, *path))
        if found:
            break
    if not found:
        found = _from_command(get_path(config, "cli_command"))
    return list(dict.fromkeys(found))


def _statement(name: object, value: object) -> tuple[str, str] | None:
    """(key, word) when ``name`` is a precision key and ``value`` a word or number."""
    if not isinstance(name, str) or name.strip().lower() not in PRECISION_KEYS:
        return None
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        return None
    word = str(value).strip()
    return (name.strip().lower(), word[:60]) if word else None


def _pair(item: object) -> tuple[object, object] | None:
    """An extra input written as ``"name:value"`` or ``[name, value]``."""
    if isinstance(item, str) and ":" in item:
        name, _, value = item.partition(":")
        return name, value
    if isinstance(item, list) and len(item) == 2 and isinstance(item[0], str):
        return item[0], item[1]
    return None


def precision_statements(config: object) -> Iterator[tuple[str, str, str]]:
    """(path, key, word) for each precision key in the config, depth first, bounded."""
    stack: list[tuple[str, object, int]] = [("input_config", config, 0)]
    seen = 0
    while stack and seen < _MAX_NODES:
        path, node, depth = stack.pop()
        seen += 1
        if depth > _MAX_DEPTH:
            continue
        children: list[tuple[str, object, int]] = []
        if isinstance(node, dict):
            for key, value in node.items():
                if found := _statement(key, value):
                    yield f"{path}.{key}", *found
                elif isinstance(value, dict | list):
                    children.append((f"{path}.{key}", value, depth + 1))
        elif isinstance(node, list):
            for index, item in enumerate(node):
                pair = _pair(item)
                if pair is not None and (found := _statement(*pair)):
                    yield f"{path}[{index}]", *found
                elif isinstance(item, dict | list):
                    children.append((f"{path}[{index}]", item, depth + 1))
        stack.extend(reversed(children))


def record_config(b: Builder, config: object) -> str | None:
    """Keep what the config says about the model and its precision in ``b.extra`` (and a
    note when it names several models); returns the model the result is named after."""
    if not isinstance(config, dict):
        return None
    names = model_names(config)
    if len(names) > 1:
        b.extra["config_model_names"] = ", ".join(names)[:500]
        b.note(
            f"the input config names {len(names)} models ({', '.join(names[:4])}"
            f"{', …' if len(names) > 4 else ''}): the requests were spread over them; the "
            "result is named after the first"
        )
    found: dict[str, tuple[str, str]] = {}
    for path, key, word in precision_statements(config):
        found.setdefault(key, (path, word))  # the first statement of each key
    for key in PRECISION_KEYS:
        if key in found:
            path, word = found[key]
            b.extra[f"config_{key}"] = word
            b.extra.setdefault("config_precision_source", path)  # the most specific key's
    return names[0] if names else None
