"""Playwright driving Debian's Chromium against pytest-django's live server.

Never `playwright install`: the browser is the system's /usr/bin/chromium (`.ci/run` installs
the Debian package). One Chromium per test module on a profile shared by the session, a new
page with cleared cookies per test. Screenshots land in test-artifacts/ (gitignored, kept by
CI as artifacts).

Tests here need `@pytest.mark.django_db(transaction=True)`: the live server runs in another
thread and sees only committed rows, so worlds are built with factories and services inside
the test. A transactional test ends with a flush, which also removes the checklist items
seeded by a data migration: `checklist_items` puts them back.
"""

from __future__ import annotations

import importlib
import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

# Assertions wait for the page; this box is shared with other test runs, so be patient.
EXPECT_TIMEOUT_MS = 15_000

ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"
PASSWORD = "gpu-demo"  # the factories' password
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def chromium_path() -> str:
    path = shutil.which("chromium") or "/usr/bin/chromium"
    if not Path(path).exists():
        pytest.fail("Debian's chromium is needed for browser tests: apt-get install -y chromium")
    return path


@pytest.fixture(scope="session")
def chromium_profile(tmp_path_factory) -> Path:
    """One Chromium profile for the whole session: V8 keeps its code cache on disk there."""
    return tmp_path_factory.mktemp("chromium-profile")


@pytest.fixture(scope="module")
def chromium(chromium_profile) -> Iterator[Any]:
    """Chromium as a persistent context on the session's profile, one launch per module.

    The persistent profile keeps V8's code cache, so plotly.js (4.8 MB) is compiled once, not
    once per page: on a busy 2-core box that saves ~10 s on every chart page. Module scope,
    not session: Playwright's sync API cannot run twice at once in one thread, so another
    area's browser fixture can start once this module is done. While the browser runs, the
    test thread sits inside Playwright's event loop, so Django's async-safety check is
    lifted, for these modules only (a session-wide DJANGO_ALLOW_ASYNC_UNSAFE would leak into
    `manage.py check --deploy` subprocesses).
    """
    from playwright.sync_api import expect, sync_playwright

    expect.set_options(timeout=EXPECT_TIMEOUT_MS)
    previous = os.environ.get("DJANGO_ALLOW_ASYNC_UNSAFE")
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    try:
        with sync_playwright() as pw:
            context = pw.chromium.launch_persistent_context(
                str(chromium_profile),
                executable_path=chromium_path(),
                args=CHROMIUM_ARGS,
                viewport={"width": 1400, "height": 1000},
            )
            context.set_default_timeout(20_000)
            context.set_default_navigation_timeout(60_000)
            yield context
            context.close()
    finally:
        if previous is None:
            os.environ.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)
        else:
            os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = previous


class Page:
    """A browser page that records console errors and takes named screenshots."""

    def __init__(self, page: Any, base_url: str, name: str) -> None:
        self.page = page
        self.base_url = base_url
        self.name = name
        self.errors: list[str] = []
        page.on("console", self._console)
        page.on("pageerror", lambda exc: self.errors.append(f"pageerror: {exc}"))

    def _console(self, message: Any) -> None:
        if message.type == "error":
            where = message.location.get("url", "") if message.location else ""
            self.errors.append(f"console: {message.text} ({where or self.page.url})")

    def goto(self, path: str) -> Any:
        """Open a path of the live server; the response, for its status."""
        return self.page.goto(self.base_url + path)

    def login(self, username: str, password: str = PASSWORD) -> None:
        """Log in through the login form, as a fresh session (any earlier user is dropped)."""
        self.logout()
        self.goto("/accounts/login/")
        self.page.fill("#id_username", username)
        self.page.fill("#id_password", password)
        with self.page.expect_navigation():
            self.page.click("form button[type=submit]")
        assert "/accounts/login/" not in self.page.url, f"login as {username!r} failed"

    def logout(self) -> None:
        self.page.context.clear_cookies()

    def slow_network(self, latency_ms: int) -> None:
        """Add round-trip latency (Chrome DevTools), so short-lived progress can be seen."""
        cdp = self.page.context.new_cdp_session(self.page)
        cdp.send(
            "Network.emulateNetworkConditions",
            {
                "offline": False,
                "latency": latency_ms,
                "downloadThroughput": -1,
                "uploadThroughput": -1,
            },
        )

    def shot(self, label: str, *, element: Any = None, full_page: bool = True) -> Path:
        """Screenshot the whole page; for long pages, only `element` (a locator) or, with
        `full_page=False`, the top of the page as the user first sees it."""
        ARTIFACTS.mkdir(exist_ok=True)
        path = ARTIFACTS / f"{self.name}-{label}.png"
        if element is not None:
            element.screenshot(path=str(path))
        else:
            if not full_page:
                self.page.evaluate("window.scrollTo(0, 0)")
            self.page.screenshot(path=str(path), full_page=full_page)
        # After a full-page shot of a tall page, headless Chromium can leave hit-testing at
        # the old scroll offset and later clicks land nowhere; starting from the top avoids it.
        self.page.evaluate("window.scrollTo(0, 0)")
        return path

    def assert_no_console_errors(self) -> None:
        assert not self.errors, "JavaScript console errors:\n" + "\n".join(self.errors)


@pytest.fixture
def browser_page(chromium, live_server, request) -> Iterator[Page]:
    from django.core.cache import cache

    # The dashboard caches its count cards for a few seconds; an earlier test's world
    # would otherwise show through in this one's pages.
    cache.clear()
    chromium.clear_cookies()
    page = Page(chromium.new_page(), live_server.url, request.node.name)
    yield page
    page.page.close()
    chromium.clear_cookies()


@pytest.fixture
def checklist_items(transactional_db) -> list[Any]:
    """The 20 seeded checklist items (put back if a transactional test flushed them)."""
    from django.apps import apps

    from checklist.models import ChecklistItem

    seed = importlib.import_module("checklist.migrations.0002_seed_items")
    if ChecklistItem.objects.count() != len(seed.ITEMS):
        seed.seed_items(apps, None)
    return list(ChecklistItem.objects.order_by("order"))


@pytest.fixture
def private_storage(settings, tmp_path) -> Path:
    """Uploaded evidence and benchmark files go to a temporary folder."""
    root = tmp_path / "private"
    root.mkdir()
    settings.STORAGES = {
        **settings.STORAGES,
        "default": {
            "BACKEND": "django.core.files.storage.FileSystemStorage",
            "OPTIONS": {"location": str(root)},
        },
    }
    settings.MEDIA_ROOT = str(root)
    return root
