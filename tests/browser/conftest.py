"""Playwright driving Debian's Chromium against pytest-django's live server.

Never `playwright install`: the browser is the system's /usr/bin/chromium (`.ci/run` installs
the Debian package). Screenshots land in test-artifacts/ (kept by CI as artifacts).
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")

ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"
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
def chromium() -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_ARGS)
        yield browser
        browser.close()


class Page:
    """A browser page that records console errors and takes named screenshots."""

    def __init__(self, page: Any, base_url: str, name: str) -> None:
        self.page = page
        self.base_url = base_url
        self.name = name
        self.errors: list[str] = []
        page.on("console", lambda m: m.type == "error" and self.errors.append(m.text))
        page.on("pageerror", lambda e: self.errors.append(str(e)))

    def goto(self, path: str) -> Any:
        return self.page.goto(self.base_url + path)

    def login(self, username: str, password: str = "gpu-demo") -> None:
        self.goto("/accounts/login/")
        self.page.fill("#id_username", username)
        self.page.fill("#id_password", password)
        self.page.click("button[type=submit]")
        self.page.wait_for_load_state()

    def logout(self) -> None:
        self.page.context.clear_cookies()

    def shot(self, label: str) -> Path:
        ARTIFACTS.mkdir(exist_ok=True)
        path = ARTIFACTS / f"{self.name}-{label}.png"
        self.page.screenshot(path=str(path), full_page=True)
        return path

    def assert_no_console_errors(self) -> None:
        assert not self.errors, f"JavaScript console errors: {self.errors}"


@pytest.fixture
def browser_page(chromium, live_server, request) -> Iterator[Page]:
    context = chromium.new_context(viewport={"width": 1400, "height": 1000})
    page = Page(context.new_page(), live_server.url, request.node.name)
    yield page
    context.close()
