"""Text in a Plotly figure is drawn as Plotly's pseudo-HTML: `<a href>`, `<b>`, `<span
style>` in a label become a link, bold or styled text (S6: an uploader's `serving_engine`
became a clickable link in the chart). Every string a figure carries is therefore escaped
(`&`, `<`, `>` as entities, which Plotly draws as the characters), except the templates the
code itself writes (`hovertemplate`, `texttemplate`), which hold only our own markup and
`%{…}` references to the escaped values. Pure: no Django.

Round 4 (R2): a builder left undecorated put a vendor's `<a href>` in a chart again. So the one
way a page embeds a figure is the `plotly_json` template filter (core.templatetags.
chart_tables), which passes every figure, whatever built it, through `figure_for_page`: a
string holding any markup but the few attribute-free tags the code writes itself (`<br>`,
`<sup>`, `<extra>`) is escaped whole, templates included. No link, style or span can reach
Plotly, even from a builder that forgot its decorator."""

from __future__ import annotations

import functools
import re
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


# The only markup the code's own figures hold: line breaks, a subtitle, the hover box's extra.
OWN_TAGS = re.compile(r"<br>|<sup>|</sup>|<extra>|</extra>")


def _page_safe(text: str) -> str:
    rest = OWN_TAGS.sub("", text)
    return plotly_escape(text) if "<" in rest or ">" in rest else text


def figure_for_page(node: Any) -> Any:
    """A copy of a figure fit to embed in a page: every string, templates included, that holds
    markup beyond `OWN_TAGS` escaped whole (escaped text has none left, so it stays as is)."""
    if isinstance(node, str):
        return _page_safe(node)
    if isinstance(node, dict):
        return {key: figure_for_page(value) for key, value in node.items()}
    if isinstance(node, list | tuple):
        return [figure_for_page(value) for value in node]
    return node
