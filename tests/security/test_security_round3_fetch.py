"""Round three, S5: the scheduled import follows no redirect to a private, loopback or
link-local address (every hop resolved and checked), and its outcome echoes no value of the
fetched body."""

from __future__ import annotations

import http.server
import threading
from collections.abc import Iterator

import pytest

from catalog.services.import_sources import import_source

pytestmark = pytest.mark.django_db

SECRET_KEY_ID = "AKIA-SECRET-KEY-ID-123"
SECRET = "wJalrXUtnFEMI/K7MDENG-SECRET"


class _Handler(http.server.BaseHTTPRequestHandler):
    routes: dict[str, tuple[int, dict[str, str], bytes]] = {}
    hits: list[str] = []

    def do_GET(self) -> None:
        self.hits.append(self.path)
        status, headers, body = self.routes.get(self.path, (404, {}, b""))
        self.send_response(status)
        for name, value in headers.items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def server() -> Iterator[str]:
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    _Handler.routes, _Handler.hits = {}, []
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()
    thread.join()


CSV = (
    "provider,accelerator,capacity_model,currency,price_per_gpu_hour,gpus_per_node\n"
    f"{SECRET_KEY_ID},{SECRET},on_demand,USD,2.50,8\n"
).encode()


def test_s5_a_redirect_to_a_loopback_or_metadata_address_is_not_followed(settings, lead, server):
    """S5 as found: the configured URL answered 302 to a loopback "metadata" server, the
    import fetched it, and the row errors carried its body. Only the configured host is
    allowed here; the redirect's host (another name for loopback, or 169.254.169.254) is
    refused before it is contacted."""
    settings.CATALOG_IMPORT_PRIVATE_HOSTS = ["127.0.0.1"]
    port = server.split(":")[1]
    _Handler.routes = {
        "/prices.csv": (302, {"Location": f"http://localhost:{port}/latest/meta-data/"}, b""),
        "/metadata.csv": (302, {"Location": "http://169.254.169.254/latest/meta-data/"}, b""),
        "/latest/meta-data/": (200, {}, CSV),
    }
    for path in ("/prices.csv", "/metadata.csv"):
        outcome = import_source(
            {"kind": "price_list", "url": f"http://{server}{path}"}, acting_user=lead
        )
        assert outcome["ok"] is False
        assert "private, loopback or link-local" in outcome["error"]
    assert "/latest/meta-data/" not in _Handler.hits


def test_s5_a_private_host_is_refused_unless_named(lead, server):
    outcome = import_source(
        {"kind": "price_list", "url": f"http://{server}/latest/meta-data/"}, acting_user=lead
    )
    assert outcome["ok"] is False
    assert "private, loopback or link-local" in outcome["error"]
    assert _Handler.hits == []


def test_s5_row_errors_carry_no_value_of_the_fetched_body(settings, lead, server):
    settings.CATALOG_IMPORT_PRIVATE_HOSTS = ["127.0.0.1"]
    _Handler.routes = {"/prices.csv": (200, {}, CSV)}
    outcome = import_source(
        {"kind": "price_list", "url": f"http://{server}/prices.csv"}, acting_user=lead
    )
    text = str(outcome)
    assert outcome.get("errors"), outcome  # the row is reported
    assert SECRET_KEY_ID not in text
    assert SECRET not in text
