"""Small helpers shared by the catalog views: paging and query strings."""

from __future__ import annotations

from typing import TYPE_CHECKING, TypeVar

from django.core.paginator import Page, Paginator
from django.http import HttpRequest

if TYPE_CHECKING:
    from django.core.paginator import _SupportsPagination

_T = TypeVar("_T")

PAGE_SIZE = 50


def paginate(
    request: HttpRequest, items: _SupportsPagination[_T], per_page: int = PAGE_SIZE
) -> Page[_T]:
    return Paginator(items, per_page).get_page(request.GET.get("page"))


def query_without(request: HttpRequest, *names: str) -> str:
    """The current query string minus some keys (for sort and page links)."""
    params = request.GET.copy()
    for name in names:
        params.pop(name, None)
    return params.urlencode()
