"""M2 and M7, round two: behind the shipped proxy no client can lock another out, and a flood
of new usernames from one address adds a bounded number of rows to the audit trail."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest
import yaml
from django.conf import settings
from django.test import Client, RequestFactory
from rest_framework.test import APIClient

from accounts.models import LoginFailure
from accounts.services import client_ip
from core.models import AuditEvent

pytestmark = pytest.mark.django_db

ROOT = Path(__file__).resolve().parents[2]
LOGIN_URL = "/accounts/login/"
TOKEN_URL = "/api/v1/auth/token/"
PASSWORD = "gpu-demo"


def compose() -> dict:
    return yaml.safe_load((ROOT / "docker-compose.yml").read_text())


def compose_trusted_proxies() -> list[str]:
    value = compose()["x-django"]["environment"]["TRUSTED_PROXIES"]
    default = value.split(":-", 1)[1].rstrip("}")  # "${TRUSTED_PROXIES:-<default>}"
    return [part.strip() for part in default.split(",") if part.strip()]


def nginx_address() -> str:
    return compose()["services"]["nginx"]["networks"]["default"]["ipv4_address"]


@pytest.fixture
def behind_nginx(settings):
    """The shipped compose default: requests arrive from nginx, the client in the header."""
    settings.TRUSTED_PROXIES = compose_trusted_proxies()
    return nginx_address()


def via_nginx(proxy: str, client_address: str) -> Client:
    return Client(REMOTE_ADDR=proxy, HTTP_X_FORWARDED_FOR=client_address)


def attempt(client: Client, username: str, password: str) -> Client:
    client.post(LOGIN_URL, {"username": username, "password": password})
    return client


def logged_in(client: Client) -> bool:
    return client.get("/").status_code == 200


def test_the_compose_default_trusts_only_nginx_itself():
    """M2: the default list is nginx's one fixed address, not whole private ranges."""
    assert compose_trusted_proxies() == [nginx_address()]
    subnet = compose()["networks"]["default"]["ipam"]["config"][0]["subnet"]
    import ipaddress

    assert ipaddress.ip_address(nginx_address()) in ipaddress.ip_network(subnet)


def test_nginx_replaces_x_forwarded_for_with_the_address_it_saw():
    """M2: the header web believes is nginx's own view of the client, never the client's
    claim appended to (``$proxy_add_x_forwarded_for`` would keep a forged left part)."""
    conf = (ROOT / "deploy" / "nginx" / "workbench.conf").read_text()
    assert "proxy_set_header X-Forwarded-For $remote_addr;" in conf
    assert "proxy_add_x_forwarded_for" not in conf


def test_an_intranet_client_is_told_apart_from_nginx(behind_nginx):
    """M2: a client on a 10.x intranet is itself, not nginx's address."""
    request = RequestFactory().get("/", REMOTE_ADDR=behind_nginx, HTTP_X_FORWARDED_FOR="10.9.9.9")
    assert client_ip(request) == "10.9.9.9"


def test_the_right_most_untrusted_hop_is_the_client(settings):
    settings.TRUSTED_PROXIES = ["172.30.80.10", "172.30.80.11"]
    factory = RequestFactory()
    forged = factory.get(
        "/", REMOTE_ADDR="172.30.80.10", HTTP_X_FORWARDED_FOR="1.2.3.4, 10.9.9.9, 172.30.80.11"
    )
    assert client_ip(forged) == "10.9.9.9"


def test_with_whole_private_ranges_trusted_clients_are_still_not_merged(settings):
    """M2: even the old broad list no longer answers the proxy's address for every intranet
    client: when every hop is trusted, the left-most hop is the client."""
    settings.TRUSTED_PROXIES = ["172.16.0.0/12", "192.168.0.0/16", "10.0.0.0/8"]
    request = RequestFactory().get("/", REMOTE_ADDR="172.18.0.5", HTTP_X_FORWARDED_FOR="10.9.9.9")
    assert client_ip(request) == "10.9.9.9"


def test_failures_from_one_intranet_host_do_not_lock_out_another(behind_nginx, finance):
    """M2: 5 wrong passwords for finance from 10.9.9.9, then the right one from 10.1.1.1."""
    attacker = via_nginx(behind_nginx, "10.9.9.9")
    for _ in range(settings.LOGIN_FAILURE_LIMIT):
        attempt(attacker, "finance", "wrong")
    assert set(LoginFailure.objects.values_list("ip_address", flat=True)) == {"10.9.9.9"}
    assert logged_in(attempt(via_nginx(behind_nginx, "10.1.1.1"), "finance", PASSWORD))
    assert not logged_in(attempt(via_nginx(behind_nginx, "10.9.9.9"), "finance", PASSWORD))


def test_a_sprayer_keeps_no_one_out(behind_nginx, finance, lead, engineer):
    """M2: an intranet host spraying every account past the address limit is refused itself;
    each user still logs in from their own host."""
    attacker = via_nginx(behind_nginx, "10.9.9.9")
    names = ["finance", "lead", "engineer"] + [f"user{i}" for i in range(5)]
    for i in range(settings.LOGIN_FAILURE_ADDRESS_LIMIT + 5):
        attempt(attacker, names[i % len(names)], "wrong")
    assert not logged_in(attempt(attacker, "finance", PASSWORD))  # the sprayer is refused
    for number, user in enumerate(["finance", "lead", "engineer"]):
        assert logged_in(attempt(via_nginx(behind_nginx, f"10.1.1.{number + 1}"), user, PASSWORD))


def test_an_attacker_rotating_addresses_cannot_lock_the_user_out(behind_nginx, finance):
    """M2, C3: past the per-account limit an unknown browser needs more than the password,
    but the user's own browser (a known device) and last address still log in."""
    own = attempt(via_nginx(behind_nginx, "10.1.1.1"), "finance", PASSWORD)
    assert logged_in(own)
    own.post("/accounts/logout/")  # the session ends, the browser keeps its cookie
    for i in range(settings.LOGIN_FAILURE_ACCOUNT_LIMIT + 5):
        attempt(via_nginx(behind_nginx, f"10.66.0.{i + 1}"), "finance", "wrong")
    assert not logged_in(attempt(via_nginx(behind_nginx, "10.66.0.1"), "finance", PASSWORD))
    assert not logged_in(attempt(via_nginx(behind_nginx, "10.1.1.2"), "finance", PASSWORD))
    assert logged_in(attempt(own, "finance", PASSWORD))
    assert logged_in(attempt(via_nginx(behind_nginx, "10.1.1.1"), "finance", PASSWORD))


# --- M7: a new username per request adds no rows ----------------------------------------------

FLOOD = 120  # distinct usernames, well past LOGIN_FAILURE_ADDRESS_LIMIT (20)
FLOOD_IP = "192.0.2.77"


def audit_rows() -> int:
    return AuditEvent.objects.filter(action__startswith="login.").count()


def _bound() -> int:
    # The first failure per (username, address) until the address is refused, then one
    # refusal event for the address.
    return settings.LOGIN_FAILURE_ADDRESS_LIMIT + 1


def test_distinct_usernames_through_the_login_form_add_bounded_rows(db):
    client = Client(REMOTE_ADDR=FLOOD_IP)
    before = audit_rows()
    for i in range(FLOOD):
        client.post(LOGIN_URL, {"username": f"ghost{i}", "password": "wrong"})
    assert audit_rows() - before <= _bound()
    assert LoginFailure.objects.count() <= _bound()
    refusals = LoginFailure.objects.get(throttled=True)
    assert refusals.attempts == FLOOD - settings.LOGIN_FAILURE_ADDRESS_LIMIT


def test_distinct_usernames_through_the_token_endpoint_add_bounded_rows(db):
    client = APIClient(REMOTE_ADDR=FLOOD_IP)
    before = audit_rows()
    for i in range(FLOOD):
        client.post(TOKEN_URL, {"username": f"ghost{i}", "password": "wrong"}, format="json")
    assert audit_rows() - before <= _bound()
    assert LoginFailure.objects.count() <= _bound()


def test_the_next_windows_refusal_event_carries_the_previous_count(db):
    """M7: refusals are counted, not logged; the next window's event says how many there were."""
    client = Client(REMOTE_ADDR=FLOOD_IP)
    limit = settings.LOGIN_FAILURE_ADDRESS_LIMIT
    for i in range(limit + 7):
        client.post(LOGIN_URL, {"username": f"ghost{i}", "password": "wrong"})
    old = LoginFailure.objects.get(throttled=True).created_at
    LoginFailure.objects.update(
        created_at=old - timedelta(seconds=settings.LOGIN_FAILURE_WINDOW_S + 1)
    )
    for i in range(limit + 1):
        client.post(LOGIN_URL, {"username": f"late{i}", "password": "wrong"})
    latest = AuditEvent.objects.filter(action="login.throttled").order_by("-id").first()
    assert latest is not None
    assert latest.summary["refusals_in_previous_window"] == "7"
