"""Fixtures of the reviews area: ready comparisons, and reusable browser fixtures.

Browser: Playwright drives Debian's Chromium (/usr/bin/chromium; never `playwright install`)
against pytest-django's live server; screenshots go to test-artifacts/ (gitignored); console
errors and page errors are collected so a test can assert there were none.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.reviews.factories_reviews import ready_comparison

os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")

ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"
CHROMIUM = "/usr/bin/chromium"
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


@pytest.fixture
def comparison(db, lead):
    """A ready comparison created by `lead` that needs one approval."""
    return ready_comparison(created_by=lead)


@pytest.fixture
def dual_comparison(db, lead):
    """A ready comparison above the dual-approval threshold (two approvals needed)."""
    from decimal import Decimal

    return ready_comparison(
        created_by=lead, required_approvals=2, commitment_usd=Decimal("480000.00")
    )


# --- Browser -----------------------------------------------------------------------------------


def chromium_executable() -> str:
    path = CHROMIUM if Path(CHROMIUM).exists() else shutil.which("chromium")
    if not path:
        pytest.fail("Debian's chromium is needed for browser tests: apt-get install -y chromium")
    return path


# Module scope, as tests/browser's: Playwright's sync API cannot run twice at once in one
# process, and under pytest-xdist any area's browser module may come next on this worker.
@pytest.fixture(scope="module")
def chromium_browser() -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium_executable(), args=CHROMIUM_ARGS)
        yield browser
        browser.close()


class BrowserPage:
    """One browser context: logs in, takes named screenshots, collects console errors."""

    def __init__(self, browser: Any, base_url: str, name: str) -> None:
        self.context = browser.new_context(viewport={"width": 1400, "height": 1000})
        # base.html links no icon, so Chromium asks for /favicon.ico and logs its 404 as a
        # console error; that request is not the page's doing, so it is answered here.
        self.context.route("**/favicon.ico", lambda route: route.fulfill(status=204))
        self.page = self.context.new_page()
        self.base_url = base_url
        self.name = name
        self.errors: list[str] = []
        self.page.on("console", self._console)
        self.page.on("pageerror", lambda exc: self.errors.append(f"pageerror: {exc}"))

    def _console(self, message: Any) -> None:
        if message.type == "error":
            self.errors.append(f"console: {message.text}")

    def goto(self, path: str) -> Any:
        return self.page.goto(self.base_url + path)

    def login(self, username: str, password: str = PASSWORD) -> None:
        self.context.clear_cookies()
        self.goto("/accounts/login/")
        self.page.fill("input[name=username]", username)
        self.page.fill("input[name=password]", password)
        with self.page.expect_navigation():
            self.page.click("form button[type=submit]")

    def shot(self, label: str) -> Path:
        ARTIFACTS.mkdir(exist_ok=True)
        path = ARTIFACTS / f"{self.name}-{label}.png"
        self.page.screenshot(path=str(path), full_page=True)
        return path

    def assert_no_console_errors(self) -> None:
        assert not self.errors, "browser errors:\n" + "\n".join(self.errors)

    def close(self) -> None:
        self.context.close()


@pytest.fixture
def browser_page(chromium_browser, live_server, request) -> Iterator[BrowserPage]:
    page = BrowserPage(chromium_browser, live_server.url, request.node.name)
    yield page
    page.close()
