"""Which context lengths a brief's memory fit is computed at — never a silent default.

- The fit is computed at the brief's **p95 input + p95 output** tokens.
- When the brief's context window is longer, conversations can reach it (a chat history
  grows up to the window), so the fit is also computed **at the window**; a fit that holds
  at p95 but not at the window raises ``FIT_ONLY_AT_AVERAGE_CONTEXT``.
- A blank p95 input is never read as 0: the fit falls back to the context window and says
  so; with neither, the brief is incomplete and the answer says that instead of guessing.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class FitContexts:
    context_tokens: int | None  # None: the brief is incomplete
    window_tokens: int | None  # also fit here (longer than context_tokens), or None
    source: str  # where context_tokens came from, in words


def fit_contexts(
    p95_input: int | None, p95_output: int | None, context_window: int | None
) -> FitContexts:
    window = int(context_window) if context_window else None
    if p95_input:
        context = int(p95_input) + int(p95_output or 0)
        source = "p95 input + p95 output" if p95_output else "p95 input (no p95 output given)"
        beyond = window if window is not None and window > context else None
        return FitContexts(context, beyond, source)
    if window is not None:
        return FitContexts(window, None, "the context window (the brief gives no p95 input)")
    return FitContexts(None, None, "incomplete: the brief gives neither a p95 input nor a window")
