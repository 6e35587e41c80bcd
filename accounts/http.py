"""Request types for the views that only signed-in users reach."""

from __future__ import annotations

from django.http import HttpRequest
from django_htmx.middleware import HtmxDetails
from rest_framework.exceptions import NotAuthenticated
from rest_framework.request import Request

from accounts.models import User


class AuthedRequest(HttpRequest):
    """A request past `login_required` / `role_required`: its user is a signed-in `User`, and
    `HtmxMiddleware` has set `htmx`."""

    user: User
    htmx: HtmxDetails


def api_user(request: Request) -> User:
    """The signed-in user of an API request (the permission classes refuse anonymous ones
    before any handler runs)."""
    user = request.user
    if not isinstance(user, User):
        raise NotAuthenticated()
    return user
