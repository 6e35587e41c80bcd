"""Pagination for every list endpoint: 50 rows by default, never more than 200 a page."""

from rest_framework.pagination import LimitOffsetPagination


class BoundedLimitOffsetPagination(LimitOffsetPagination):
    default_limit = 50
    max_limit = 200  # an absurd ?limit= is capped, never passed to the database
