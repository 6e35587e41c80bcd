"""Round three, logins (S2 = M2 again, C3): one key per account, atomic counts, and past a
limit an unknown browser needs more than the password, through the product's form, the
token endpoint and the admin's login; parallel clients on PostgreSQL."""

from __future__ import annotations

import re
import threading
from collections.abc import Callable

import pytest
from django.conf import settings
from django.core import mail
from django.db import connection
from django.test import Client

from accounts.models import LoginFailure, LoginLinkRequest, User
from accounts.services import devices
from core.models import AuditEvent

LOGIN_URL = "/accounts/login/"
ADMIN_URL = "/admin/login/"
TOKEN_URL = "/api/v1/auth/token/"
PASSWORD = "gpu-demo"


def form(client: Client, username: str, password: str) -> None:
    client.post(LOGIN_URL, {"username": username, "password": password})


def admin(client: Client, username: str, password: str) -> None:
    client.post(ADMIN_URL, {"username": username, "password": password, "next": "/admin/"})


def token(client: Client, username: str, password: str) -> int:
    response = client.post(
        TOKEN_URL, {"username": username, "password": password}, content_type="application/json"
    )
    return response.status_code


def logged_in(client: Client) -> bool:
    return client.get("/").status_code == 200


def admin_in(client: Client) -> bool:
    return client.get("/admin/").status_code == 200


# --- S2: one key per account ------------------------------------------------------------------


@pytest.mark.django_db
def test_s2_fullwidth_variants_count_for_the_account_at_the_form(security):
    """S2 as found: 6 wrong for "security" throttled it, then "ｓecurity" (U+FF53) with the
    right password logged in as security. Variants now count for the same account."""
    client = Client(REMOTE_ADDR="203.0.113.20")
    for variant in ("security", "ｓecurity", "SECURITY", "ｓｅｃｕｒｉｔｙ", "Security"):
        form(client, variant, "wrong")
    assert set(LoginFailure.objects.values_list("username", flat=True)) == {"security"}
    form(client, "ｓecurity", PASSWORD)
    assert not logged_in(client)
    form(client, "security", PASSWORD)
    assert not logged_in(client)
    events = AuditEvent.objects.filter(action__startswith="login.", object_id="security")
    assert events.filter(action="login.failed").exists()


@pytest.mark.django_db
def test_s2_fullwidth_variants_count_for_the_account_at_the_admin(admin_member):
    """S2 as found: 6 wrong for "admin" at /admin/login/, then "ａdmin" with the right one
    → /admin/. Now refused like the plain name."""
    client = Client(REMOTE_ADDR="203.0.113.21")
    for _ in range(settings.LOGIN_FAILURE_LIMIT):
        admin(client, "admin", "wrong")
    admin(client, "ａdmin", PASSWORD)
    assert not admin_in(client)


@pytest.mark.django_db
def test_s2_fullwidth_variants_count_for_the_account_at_the_token_endpoint(engineer):
    client = Client(REMOTE_ADDR="203.0.113.22")
    for variant in ("ｅngineer", "eｎgineer", "ENGINEER", "engineeｒ", "engineer"):
        assert token(client, variant, "wrong") == 400
    assert token(client, "ｅngineer", PASSWORD) == 403
    assert token(client, "engineer", PASSWORD) == 403


# --- M2 (S2's race): parallel guesses are counted one by one ----------------------------------


SURFACES: dict[str, Callable[[Client, str, str], object]] = {
    "form": form,
    "token": token,
    "admin": admin,
}


@pytest.mark.parametrize("surface", sorted(SURFACES))
@pytest.mark.django_db(transaction=True)
def test_m2_parallel_guesses_are_counted_one_by_one(surface, finance, admin_member):
    """S2's race: 16 parallel wrong passwords for one account from one address were all
    checked against a limit of 5. Now exactly the limit are checked as guesses; the rest are
    stepped up (counted on the address's aggregate row)."""
    name = admin_member.username if surface == "admin" else finance.username
    send = SURFACES[surface]
    parallel = 16
    barrier = threading.Barrier(parallel)
    errors: list[BaseException] = []

    def guess(i: int) -> None:
        try:
            client = Client(REMOTE_ADDR="198.51.100.77")
            barrier.wait()
            send(client, name, f"wrong-{i}")
        except BaseException as exc:  # reported below, on the test's thread
            errors.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=guess, args=(i,)) for i in range(parallel)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors
    checked = LoginFailure.objects.filter(username=name, throttled=False).count()
    assert checked == settings.LOGIN_FAILURE_LIMIT
    aggregate = LoginFailure.objects.get(throttled=True)
    assert aggregate.attempts == parallel - settings.LOGIN_FAILURE_LIMIT


# --- C3: many addresses do not outlast the account limit --------------------------------------


@pytest.mark.django_db
def test_c3_rotating_addresses_do_not_get_the_account_by_the_password_alone(finance):
    """C3 as found: 25 wrong passwords from 25 addresses, then the right one from a 26th
    logged in at once. Now the 26th is stepped up: nobody logs in, a one-time link is mailed
    to the account, and the link signs the user in once."""
    for i in range(25):
        form(Client(REMOTE_ADDR=f"198.51.100.{i + 1}"), "finance", "wrong")
    attacker = Client(REMOTE_ADDR="198.51.100.26")
    response = attacker.post(LOGIN_URL, {"username": "finance", "password": PASSWORD})
    assert b"Too many failed attempts" in response.content
    assert not logged_in(attacker)
    wrong = Client(REMOTE_ADDR="198.51.100.27")
    same = wrong.post(LOGIN_URL, {"username": "finance", "password": "wrong"})
    assert same.content.count(b"Too many failed attempts") == 1  # the same answer: no oracle
    (row,) = LoginLinkRequest.objects.filter(user=finance)  # only the right password asks
    assert devices.login_link_mail_send(request_id=row.pk, domain="testserver", use_https=False)
    (message,) = mail.outbox
    assert message.to == [finance.email]
    assert "198.51.100.26" in message.body
    link = re.search(r"http://testserver(/accounts/login/link/\S+/)", message.body).group(1)
    user = Client(REMOTE_ADDR="192.0.2.44")
    assert user.get(link).status_code == 200  # a button, not a login (mail scanners)
    assert not logged_in(user)
    user.post(link)
    assert logged_in(user)
    again = Client(REMOTE_ADDR="192.0.2.45")
    assert again.post(link).status_code == 400  # once only
    assert not logged_in(again)


@pytest.mark.django_db
def test_c3_rotating_addresses_at_the_token_endpoint(engineer):
    """C3 at the token endpoint: the 26th address with the right password gets no token."""
    for i in range(25):
        token(Client(REMOTE_ADDR=f"198.51.100.{i + 1}"), "engineer", "wrong")
    assert token(Client(REMOTE_ADDR="198.51.100.26"), "engineer", PASSWORD) == 403
    assert LoginLinkRequest.objects.filter(user=engineer).count() == 1


@pytest.mark.django_db
def test_c3_one_address_cannot_lock_out_everyone_behind_it(finance, lead, engineer):
    """C3 (note 4): 20 failures from one office NAT address refused every user behind it,
    right passwords included. Browsers that logged in before keep working; a colleague on a
    new browser gets the mailed link; the sprayer gets neither."""
    office = "192.0.2.10"
    colleague = Client(REMOTE_ADDR=office)
    form(colleague, "lead", PASSWORD)
    assert logged_in(colleague)
    colleague.post("/accounts/logout/")
    sprayer = Client(REMOTE_ADDR=office)
    for i in range(settings.LOGIN_FAILURE_ADDRESS_LIMIT):
        form(sprayer, f"user{i}", "wrong")
    form(sprayer, "finance", "wrong")
    assert not logged_in(sprayer)
    form(colleague, "lead", PASSWORD)
    assert logged_in(colleague)  # a known device
    newcomer = Client(REMOTE_ADDR=office)
    form(newcomer, "engineer", PASSWORD)
    assert not logged_in(newcomer)
    assert LoginLinkRequest.objects.filter(user=engineer).exists()  # not locked out


@pytest.mark.django_db
def test_c3_a_known_device_cookie_is_bound_to_its_account(finance, lead):
    """A known-device cookie earned by one account does not let another account past its
    limit, and a forged cookie is ignored."""
    client = Client(REMOTE_ADDR="192.0.2.20")
    form(client, "lead", PASSWORD)
    assert logged_in(client)
    client.post("/accounts/logout/")
    for i in range(settings.LOGIN_FAILURE_ACCOUNT_LIMIT):
        form(Client(REMOTE_ADDR=f"198.51.100.{i + 1}"), "finance", "wrong")
    form(client, "finance", PASSWORD)
    assert not logged_in(client)
    forged = Client(REMOTE_ADDR="192.0.2.21")
    forged.cookies[settings.KNOWN_DEVICE_COOKIE] = "eyJkIjoiYSIsInUiOlsxXX0:forged:sig"
    form(forged, "finance", PASSWORD)
    assert not logged_in(forged)
    assert User.objects.get(username="finance").last_login is None
