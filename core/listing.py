"""List pages the way ec2instances.info does them: every sortable header is a
link, the sort, the filters and the page live in the URL (shareable, survive a reload), and
an empty page knows whether filters emptied it.

One helper for every list (quotes, benchmark results, comparisons, the checklist, the audit
trail): ``paginate`` cuts every page (ADR 0016), ``list_page`` adds the sort; two partials:
``components/_sort_headers.html`` (the ``<th>`` cells, with ``aria-sort``) and
``components/_pager.html`` (previous / page n of m / next, the filters kept).

    COLUMNS = (Column("provider", "Provider", "provider__name"), Column("gpus", "GPUs", "gpus",
               numeric=True), Column("notes", "Notes"))          # no order_by: not sortable
    listing = list_page(request, queryset, COLUMNS, default_sort="-created")

A sort key the page does not know falls back to the default (an old bookmark still opens).
Empty values sort last in both directions, so "cheapest first" never starts with blanks.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

from django.core.paginator import Page, Paginator
from django.db.models import Expression, F, FloatField, QuerySet
from django.db.models.expressions import OrderBy
from django.db.models.fields.json import KeyTextTransform, KeyTransform
from django.db.models.functions import Cast
from django.http import HttpRequest

from core.paging import rows_in_order

if TYPE_CHECKING:
    from django.core.paginator import _SupportsPagination

_T = TypeVar("_T")

PAGE_SIZE = 50
# Query keys that are the view's state, not filters (an empty list under them is no "match").
STATE_KEYS = frozenset({"page", "sort", "format", "cols"})


@dataclass(frozen=True, slots=True)
class Column:
    """One column of a list: its URL sort key, header text and ORM ordering path."""

    key: str
    label: str
    # ORM paths or expressions, the first deciding; None: the column does not sort.
    order_by: str | Expression | tuple[str | Expression, ...] | None = None
    numeric: bool = False

    def ordering(self, descending: bool) -> list[OrderBy]:
        paths = self.order_by if isinstance(self.order_by, tuple) else (self.order_by,)
        exprs = [F(p) if isinstance(p, str) else p for p in paths if p is not None]
        return [e.desc(nulls_last=True) if descending else e.asc(nulls_last=True) for e in exprs]


def json_number(field: str, *keys: str) -> Expression:
    """A number inside a JSONField as a float, for sorting: a missing key and a JSON null
    both become SQL NULL (jsonb would order null before every number)."""
    node: Any = field
    for key in keys[:-1]:
        node = KeyTransform(key, node)
    return Cast(KeyTextTransform(keys[-1], node), FloatField())


@dataclass(frozen=True, slots=True)
class Header:
    key: str
    label: str
    numeric: bool
    query: str  # the query string that sorts by this column ("" when not sortable)
    aria_sort: str  # "ascending", "descending" or ""

    @property
    def arrow(self) -> str:
        return {"ascending": " ▲", "descending": " ▼"}.get(self.aria_sort, "")


@dataclass(frozen=True, slots=True)
class ListPage:
    """What a list template needs: the page, its headers, and the state in the URL."""

    page: Page[Any]
    headers: list[Header]
    sort: str
    filtered: bool  # a filter is set: an empty page means "no match", not "nothing yet"
    page_query: str  # the filters and sort, without the page (for the pager's links)


def paginate(
    items: _SupportsPagination[_T],
    number: int | str | None,
    *,
    per_page: int = PAGE_SIZE,
    paginator_class: type[Paginator] = Paginator,  # type: ignore[type-arg]
) -> Page[_T]:
    """Page ``number`` of ``items`` (usually ``request.GET.get("page")``): a number that is
    not one opens the first page, one past the end the last (``Paginator.get_page``).

    ``paginator_class``: a Paginator that counts differently (the audit trail's bounded
    count)."""
    page: Page[_T] = paginator_class(items, per_page).get_page(number)
    return page


def query_without(request: HttpRequest, *names: str) -> str:
    """The current query string minus some keys."""
    params = request.GET.copy()
    for name in names:
        params.pop(name, None)
    return params.urlencode()


def is_filtered(request: HttpRequest, ignore: Sequence[str] = ()) -> bool:
    """Any filter set in the URL (state keys such as the page and the sort do not count)."""
    skip = STATE_KEYS | set(ignore)
    return any(
        value.strip() for key, values in request.GET.lists() if key not in skip for value in values
    )


def valid_sort(columns: Sequence[Column], sort: str, default: str) -> str:
    """The asked sort if a sortable column has that key (``-key`` descending), else the
    default: an old bookmark or a typed URL still opens the page."""
    sortable = {c.key for c in columns if c.order_by}
    return sort if sort.lstrip("-") in sortable else default


def apply_sort(
    queryset: QuerySet[Any], columns: Sequence[Column], sort: str, *, default: str
) -> tuple[QuerySet[Any], str]:
    """The queryset in the asked order (blanks last, the primary key breaking ties) and the
    sort actually applied."""
    sort = valid_sort(columns, sort, default)
    column = next((c for c in columns if c.key == sort.lstrip("-")), None)
    if column is None or column.order_by is None:
        return queryset, sort
    descending = sort.startswith("-")
    return queryset.order_by(*column.ordering(descending), "-pk" if descending else "pk"), sort


def sort_headers(request: HttpRequest, columns: Sequence[Column], current: str) -> list[Header]:
    """One header per column; a click sorts ascending first, then toggles."""
    return headers_for_query(query_without(request, "sort", "page"), columns, current)


def headers_for_query(base: str, columns: Sequence[Column], current: str) -> list[Header]:
    """The headers over a given query string (the state to keep), for pages rendered once
    and cached for every viewer, whose links must not carry one viewer's stray parameters."""
    headers = []
    for column in columns:
        query, aria = "", ""
        if column.order_by:
            target = f"-{column.key}" if current == column.key else column.key
            query = f"{base}&sort={target}".lstrip("&")
            if current == column.key:
                aria = "ascending"
            elif current == f"-{column.key}":
                aria = "descending"
        headers.append(Header(column.key, column.label, column.numeric, query, aria))
    return headers


def list_page(
    request: HttpRequest,
    queryset: QuerySet[Any],
    columns: Sequence[Column],
    *,
    default_sort: str,
    per_page: int = PAGE_SIZE,
    filter_ignore: Sequence[str] = (),
    keys_first: bool = False,
) -> ListPage:
    """Sort by ``?sort=`` (``-key`` descending), page by ``?page=``, keep the rest.

    ``keys_first``: load the page as its keys, then those rows (core.paging), for lists whose
    joins make PostgreSQL sort every wide row before it can cut a page."""
    ordered, sort = apply_sort(queryset, columns, request.GET.get("sort", ""), default=default_sort)
    page = paginate(ordered, request.GET.get("page"), per_page=per_page)
    if keys_first:
        offset = (page.number - 1) * per_page
        page.object_list = rows_in_order(ordered, offset, offset + per_page)
    return ListPage(
        page=page,
        headers=sort_headers(request, columns, sort),
        sort=sort,
        filtered=is_filtered(request, filter_ignore),
        page_query=query_without(request, "page"),
    )
