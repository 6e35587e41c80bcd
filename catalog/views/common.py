"""Small helpers shared by the catalog views: role gates, domain errors on forms, paging."""

from __future__ import annotations

from typing import TYPE_CHECKING, TypeVar

from django import forms
from django.core.paginator import Page, Paginator
from django.http import HttpRequest

from catalog import access
from core.errors import DomainError
from core.roles import STAFF_ROLES, Role, role_required

if TYPE_CHECKING:
    from django.core.paginator import _SupportsPagination

_T = TypeVar("_T")

staff_required = role_required(*STAFF_ROLES)
writer_required = role_required(*access.CATALOG_WRITERS)
fx_writer_required = role_required(*access.FX_WRITERS)
vendor_required = role_required(Role.VENDOR)

PAGE_SIZE = 50


def form_error(form: forms.BaseForm, exc: DomainError) -> None:
    """Put a service's per-field messages next to the fields (or on top of the form)."""
    if not exc.fields:
        form.add_error(None, exc.message)
        return
    for field, messages in exc.fields.items():
        target = field if field in form.fields else None
        for message in messages:
            label = "" if target else f"{field.replace('_', ' ')}: "
            form.add_error(target, f"{label}{message}" if target is None else message)


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
