"""Login-session lifetimes: an idle timeout and an absolute lifetime.

``SESSION_IDLE_TIMEOUT_S`` (30 minutes by default) without a request, or
``SESSION_ABSOLUTE_S`` (12 hours) since the login, ends the login session; the next page asks
to log in again. The last-seen time is written at most once a minute, so a busy page does
not write the session on every request."""

from __future__ import annotations

import time
from typing import Any

from django.conf import settings
from django.contrib.auth import logout
from django.http import HttpRequest, HttpResponse
from django.utils.deprecation import MiddlewareMixin

AUTH_AT = "auth_at"
SEEN_AT = "seen_at"


def session_started(sender: Any, request: HttpRequest, user: Any, **kwargs: Any) -> None:
    """`user_logged_in` receiver: the absolute lifetime counts from here."""
    now = time.time()
    request.session[AUTH_AT] = now
    request.session[SEEN_AT] = now


class SessionLifetimeMiddleware(MiddlewareMixin):
    def process_request(self, request: HttpRequest) -> None:
        session = getattr(request, "session", None)
        user = getattr(request, "user", None)
        if session is not None and user is not None and user.is_authenticated:
            now = time.time()
            started = session.get(AUTH_AT)
            seen = session.get(SEEN_AT)
            if started is None or seen is None:
                session[AUTH_AT] = started or now
                session[SEEN_AT] = now
            elif (
                now - float(seen) > settings.SESSION_IDLE_TIMEOUT_S
                or now - float(started) > settings.SESSION_ABSOLUTE_S
            ):
                logout(request)
            elif now - float(seen) > 60:
                session[SEEN_AT] = now


class NoStoreMiddleware(MiddlewareMixin):
    """Authenticated responses (pages, API JSON, CSV/XLSX exports) are not kept by
    browsers or shared caches: `Cache-Control: private, no-store` unless a view set its own."""

    def process_response(self, request: HttpRequest, response: HttpResponse) -> HttpResponse:
        user = getattr(request, "user", None)
        authenticated = bool(user is not None and user.is_authenticated)
        if (authenticated or "HTTP_AUTHORIZATION" in request.META) and (
            not response.has_header("Cache-Control")
        ):
            response["Cache-Control"] = "private, no-store"
        return response


class KnownDeviceMiddleware(MiddlewareMixin):
    """C3: after a successful login the response carries the known-device cookie (a signed
    device id and the accounts that logged in from this browser; accounts.services.devices),
    so that past a login limit this browser still logs in with the password alone."""

    def process_response(self, request: HttpRequest, response: HttpResponse) -> HttpResponse:
        value = getattr(request, "known_device_cookie", None)
        if value:
            response.set_cookie(
                settings.KNOWN_DEVICE_COOKIE,
                value,
                max_age=settings.KNOWN_DEVICE_DAYS * 86400,
                secure=settings.SESSION_COOKIE_SECURE,
                httponly=True,
                samesite="Lax",
            )
        return response
