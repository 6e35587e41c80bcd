"""Text in a Plotly figure is drawn as Plotly's pseudo-HTML: `<a href>`, `<b>`, `<span
style>` in a label become a link, bold or styled text (S6: an uploader's `serving_engine`
became a clickable link in the chart). Every string a figure carries is therefore escaped
(`&`, `<`, `>` as entities, which Plotly draws as the characters), except the templates the
code itself writes (`hovertemplate`, `texttemplate`), which hold only our own markup and
`%{…}` references to the escaped values. Pure: no Django."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, ParamSpec, TypeVar

P = ParamSpec("P")
R = TypeVar("R")

# Keys whose strings are the code's own Plotly markup, never user text.
OWN_MARKUP = frozenset({"hovertemplate", "texttemplate"})
_ENTITIES = (("&", "&amp;"), ("<", "&lt;"), (">", "&gt;"))


def plotly_escape(text: str) -> str:
    for char, entity in _ENTITIES:
        text = text.replace(char, entity)
    return text


def plotly_unescape(text: str) -> str:
    """The characters back (for the chart's text alternative, which the template escapes)."""
    for char, entity in reversed(_ENTITIES):
        text = text.replace(entity, char)
    return text


def escape_figure(node: Any) -> Any:
    """A copy of a figure (dicts, lists, strings, numbers) with every string escaped."""
    if isinstance(node, str):
        return plotly_escape(node)
    if isinstance(node, dict):
        return {
            key: value if key in OWN_MARKUP else escape_figure(value) for key, value in node.items()
        }
    if isinstance(node, list | tuple):
        return [escape_figure(value) for value in node]
    return node


def plotly_escaped(builder: Callable[P, R]) -> Callable[P, R]:
    """Decorate a figure builder: the figure it returns has every string escaped."""

    @functools.wraps(builder)
    def build(*args: P.args, **kwargs: P.kwargs) -> R:
        figure = builder(*args, **kwargs)
        escaped: R = figure if figure is None else escape_figure(figure)
        return escaped

    return build
