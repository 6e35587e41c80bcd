"""Pagination for every list endpoint: 50 rows by default, never more than 200 a page."""

from typing import Any

from django.db.models import QuerySet
from rest_framework.pagination import LimitOffsetPagination
from rest_framework.request import Request
from rest_framework.views import APIView

from core.paging import rows_in_order


class BoundedLimitOffsetPagination(LimitOffsetPagination):
    default_limit = 50
    max_limit = 200  # an absurd ?limit= is capped, never passed to the database


class KeysFirstPagination(BoundedLimitOffsetPagination):
    """The same pages, loaded as the page's keys first, then those rows (core.paging): for
    long lists whose rows join several tables."""

    def paginate_queryset(
        self, queryset: QuerySet[Any], request: Request, view: APIView | None = None
    ) -> list[Any] | None:
        self.request = request
        self.limit = self.get_limit(request)
        if self.limit is None:
            return None
        self.count = self.get_count(queryset)
        self.offset = self.get_offset(request)
        if self.count > self.limit and self.template is not None:
            self.display_page_controls = True
        if self.count == 0 or self.offset > self.count:
            return []
        return rows_in_order(queryset, self.offset, self.offset + self.limit)
