"""Static gates: no inline script or event handler in any template (the CSP forbids them),
bandit clean (S-16), and the OpenAPI schema behind a login."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
APPS = ("core", "accounts", "catalog", "checklist", "briefs", "benchmarks", "procurement")
SCRIPT_TAG = re.compile(r"<script\b([^>]*)>(.*?)</script\s*>", re.IGNORECASE | re.DOTALL)
TAG = re.compile(r"<[a-zA-Z][^<>]*>", re.DOTALL)
EVENT_ATTRIBUTE = re.compile(r"(?:^|[\s\"'])(on[a-z]+|hx-on[:\w-]*)\s*=", re.IGNORECASE)
JS_URL = re.compile(r"""(?:href|src|action|formaction)\s*=\s*["']?\s*javascript:""", re.I)


def template_files() -> list[Path]:
    roots = [ROOT / "templates"] + [ROOT / app / "templates" for app in APPS]
    files = sorted(p for root in roots if root.is_dir() for p in root.rglob("*.html"))
    assert len(files) > 20, "templates not found"
    return files


def inline_script_problems(text: str) -> list[str]:
    problems = []
    for attrs, body in SCRIPT_TAG.findall(text):
        if re.search(r"\bsrc\s*=", attrs):
            if body.strip():
                problems.append(f"<script src> with code inside: {body.strip()[:60]!r}")
        elif "application/json" not in attrs.lower():
            problems.append(f"inline <script{attrs}>: {body.strip()[:60]!r}")
    for tag in TAG.findall(text):
        if match := EVENT_ATTRIBUTE.search(tag[1:]):
            problems.append(f"event-handler attribute {match.group(1)} in {tag[:80]!r}")
        if JS_URL.search(tag):
            problems.append(f"javascript: URL in {tag[:80]!r}")
    return problems


def test_the_scanner_catches_what_it_must():
    bad = [
        "<script>alert(1)</script>",
        '<script type="text/javascript">x()</script>',
        '<script src="/a.js">x()</script>',
        '<button onclick="x()">',
        "<body onload='x()'>",
        '<div hx-on:click="x()">',
        '<a href="javascript:x()">',
        "<img src=x onerror=alert(1)>",
    ]
    good = [
        "<script src=\"{% static 'js/app.js' %}\" defer></script>",
        '<script id="fig" type="application/json">{"a": 1}</script>',
        '<form method="post" action="/x/">',
        "<p>Based on the brief, the onboarding=fast option</p>",
        '<div class="chart" data-plotly="fig-x" data-onload="no"></div>',
    ]
    assert all(inline_script_problems(t) for t in bad), [
        t for t in bad if not inline_script_problems(t)
    ]
    assert not any(inline_script_problems(t) for t in good)


def test_no_template_has_inline_script_or_event_handlers():
    problems = []
    for path in template_files():
        for problem in inline_script_problems(path.read_text(encoding="utf-8")):
            problems.append(f"{path.relative_to(ROOT)}: {problem}")
    assert not problems, "\n".join(problems)


@pytest.mark.django_db
def test_rendered_pages_have_no_inline_script(client, lead):
    """The rendered output too: json_script is the only inline <script>, and it is JSON."""
    client.force_login(lead)
    for url in (
        "/",
        "/catalog/",
        "/briefs/",
        "/briefs/memory-fit/",
        "/comparisons/",
        "/benchmarks/",
    ):
        response = client.get(url)
        assert response.status_code == 200, url
        assert not inline_script_problems(response.content.decode()), url


def test_bandit_finds_nothing_of_medium_or_high_severity():
    bandit = shutil.which("bandit", path=str(Path(sys.executable).parent))
    assert bandit, "bandit is in requirements-dev.txt"
    result = subprocess.run(
        [bandit, "-r", *APPS, "-ll", "-q", "-x", "*/migrations/*,*/tests/*"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "No issues identified." in result.stdout or ">> Issue" not in result.stdout


@pytest.mark.django_db
def test_the_openapi_schema_needs_a_login(client, api_client, vendor_a):
    assert api_client.get("/api/schema/").status_code in (401, 403)
    client.force_login(vendor_a)
    response = client.get("/api/schema/")
    assert response.status_code == 200
    assert b"/api/v1/quotes/" in response.content
