"""Small helpers shared by the catalog views: paging and query strings."""

from __future__ import annotations

from typing import Any

from django.core.paginator import Page, Paginator
from django.http import HttpRequest

PAGE_SIZE = 50


def paginate(request: HttpRequest, items: Any, per_page: int = PAGE_SIZE) -> Page:
    return Paginator(items, per_page).get_page(request.GET.get("page"))


def query_without(request: HttpRequest, *names: str) -> str:
    """The current query string minus some keys (for sort and page links)."""
    params = request.GET.copy()
    for name in names:
        params.pop(name, None)
    return params.urlencode()
