"""U39: static files are served compressed, under hashed names, with a long cache lifetime,
and a cold visit of a chart page transfers under 1.5 MB.

The production storage (WhiteNoise's CompressedManifestStaticFilesStorage) is collected once
into a temporary STATIC_ROOT; the page and every script and stylesheet it names are then
fetched through WhiteNoise's middleware with ``Accept-Encoding: br, gzip``.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from django.contrib.staticfiles import finders
from django.core.management import call_command
from django.http import HttpResponseBase
from django.test import Client, override_settings

COLD_VISIT_BUDGET_BYTES = 1_500_000
ASSET = re.compile(r"""<(?:script|link)\b[^>]*?(?:src|href)="(/static/[^"]+)\"""")
HASHED = re.compile(r"\.[0-9a-f]{12}\.(?:js|css|svg)$")
# Third-party admin and API-docs assets are not on the workbench's pages; skipping them
# keeps the collection (and its brotli pass) to a few seconds.
IGNORED = ["admin/*", "drf_spectacular_sidecar/*", "rest_framework/*", "django_htmx/*"]


@pytest.fixture(scope="module")
def production_static(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    root = tmp_path_factory.mktemp("staticfiles")
    storages = {
        "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
        "staticfiles": {"BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"},
    }
    with override_settings(STATIC_ROOT=root, STORAGES=storages, WHITENOISE_MAX_AGE=3600):
        call_command("collectstatic", interactive=False, verbosity=0, ignore_patterns=IGNORED)
        yield root


def body_size(response: HttpResponseBase) -> int:
    if getattr(response, "streaming", False):
        return sum(len(chunk) for chunk in response.streaming_content)  # type: ignore[attr-defined]
    return len(response.content)  # type: ignore[attr-defined]


def test_the_shipped_plotly_is_the_basic_bundle():
    """U39: scatter and bar are all the charts draw; the basic bundle is a quarter the size."""
    path = finders.find("vendor/plotly/plotly.min.js")
    assert path, "plotly is served locally"
    head = Path(path).read_text(encoding="utf-8")[:200]
    assert "plotly.js (basic - minified)" in head
    assert Path(path).stat().st_size < 1_400_000
    charts = "".join(
        Path(p).read_text(encoding="utf-8")
        for p in Path(__file__).resolve().parents[2].glob("*/charts.py")
    )
    axis_and_shape_types = {"log", "linear", "category", "date", "line", "data", "rect"}
    trace_types = set(re.findall(r'"type": "(\w+)"', charts)) - axis_and_shape_types
    assert trace_types <= {"bar", "scatter"}, trace_types


@pytest.mark.django_db
def test_a_cold_visit_of_a_chart_page_is_compressed_cached_and_under_budget(
    production_static, engineer, catalog
):
    """U39: every asset is brotli-compressed, hash-named and immutable; the total < 1.5 MB."""
    client = Client()
    client.force_login(engineer)
    page = client.get("/catalog/", HTTP_ACCEPT_ENCODING="br, gzip")
    assert page.status_code == 200
    html = page.content.decode()
    assert 'data-plotly="fig-' in html, "the catalog is a chart page"
    assets = ASSET.findall(html)
    assert any("plotly.min" in url for url in assets)
    total = len(page.content)
    for url in assets:
        response = client.get(url, HTTP_ACCEPT_ENCODING="br, gzip")
        assert response.status_code == 200, url
        assert HASHED.search(url), f"{url} has no content hash in its name"
        assert response["Content-Encoding"] == "br", url
        cache = response["Cache-Control"]
        assert "immutable" in cache, (url, cache)
        assert "max-age=315360000" in cache, (url, cache)
        total += body_size(response)
    print(f"cold visit: {total:,} bytes")
    assert total < COLD_VISIT_BUDGET_BYTES, f"cold visit transfers {total:,} bytes"


@pytest.mark.django_db
def test_gzip_is_served_to_a_browser_without_brotli(production_static, engineer, catalog):
    """U39: a client that only accepts gzip gets the gzip file."""
    client = Client()
    client.force_login(engineer)
    html = client.get("/catalog/").content.decode()
    plotly_url = next(url for url in ASSET.findall(html) if "plotly" in url)
    response = client.get(plotly_url, HTTP_ACCEPT_ENCODING="gzip")
    assert response["Content-Encoding"] == "gzip"
    assert body_size(response) < 500_000
