"""L9: password reset by e-mail (Django's views and tokens) without account enumeration,
throttled per address and per e-mail address; mail through the locmem backend."""

from __future__ import annotations

import re

import pytest
from django.core import mail
from django.test import Client, TestCase

from accounts.models import PasswordResetRequest

pytestmark = pytest.mark.django_db

RESET_URL = "/accounts/password/reset/"
NEW_PASSWORD = "a long and unusual passphrase"


QUEUED: list[tuple[str, tuple]] = []


@pytest.fixture(autouse=True)
def broker(monkeypatch):
    """Messages published through `core.jobs` are kept here, for the test to run as a worker."""
    QUEUED.clear()
    monkeypatch.setattr("core.jobs.send", lambda name, args, **kw: QUEUED.append((name, args)))
    yield QUEUED
    QUEUED.clear()


def request_reset(email: str, ip: str = "203.0.113.40"):
    """The request alone: its on-commit callbacks run (publishing), no task is run."""
    with TestCase.captureOnCommitCallbacks(execute=True):
        return Client(REMOTE_ADDR=ip).post(RESET_URL, {"email": email}, follow=True)


def run_queued() -> None:
    """What the worker does with the queued messages."""
    from accounts.tasks import password_reset_mail_send_task

    while QUEUED:
        name, args = QUEUED.pop(0)
        assert name == password_reset_mail_send_task.name  # the name a worker knows it by
        password_reset_mail_send_task(*args)


def ask(email: str, ip: str = "203.0.113.40"):
    """The request, then the worker's part."""
    response = request_reset(email, ip)
    run_queued()
    return response


def page(response) -> bytes:
    """The page without its per-client parts (CSRF token, CSP nonce)."""
    return re.sub(
        rb'(csrfmiddlewaretoken" value="|nonce="|X-CSRFToken": ")[^"]*"', rb"\1", response.content
    )


def link_in(message: mail.EmailMessage) -> str:
    found = re.search(r"https?://[^/\s]+(/accounts/password/reset/\S+/)", message.body)
    assert found, message.body
    return found.group(1)


def test_l9_password_reset_by_email_sets_a_new_password_once(finance):
    """The link from the e-mail sets a new password (validated), ends the user's other login
    sessions, revokes their tokens, is audited, and works only once."""
    from knox.models import AuthToken

    from core.models import AuditEvent

    AuthToken.objects.create(user=finance)
    other_session = Client()
    other_session.force_login(finance)

    response = ask(finance.email)
    assert response.redirect_chain[-1][0] == "/accounts/password/reset/sent/"
    assert len(mail.outbox) == 1
    assert mail.outbox[0].to == [finance.email]
    link = link_in(mail.outbox[0])

    browser = Client()
    form_page = browser.get(link, follow=True)
    assert b"Choose a new password" in form_page.content
    set_url = form_page.redirect_chain[-1][0]
    weak = browser.post(set_url, {"new_password1": "Budget2026", "new_password2": "Budget2026"})
    assert b"at least 12 characters" in weak.content
    done = browser.post(
        set_url, {"new_password1": NEW_PASSWORD, "new_password2": NEW_PASSWORD}, follow=True
    )
    assert done.redirect_chain[-1][0] == "/accounts/password/reset/complete/"

    finance.refresh_from_db()
    assert finance.check_password(NEW_PASSWORD)
    assert not AuthToken.objects.filter(user=finance).exists()
    assert AuditEvent.objects.filter(action="password.reset", actor=finance).count() == 1
    assert other_session.get("/").status_code == 302  # the old session ended
    again = Client().get(link, follow=True)
    assert b"This link no longer works" in again.content


def test_l9_an_unknown_address_gets_the_same_answer_and_no_mail(finance):
    """No account enumeration: known and unknown addresses land on the same page."""
    known = ask(finance.email, ip="203.0.113.41")
    unknown = ask("nobody-here@example.com", ip="203.0.113.42")
    assert known.redirect_chain == unknown.redirect_chain
    assert page(known) == page(unknown)
    assert [m.to for m in mail.outbox] == [[finance.email]]


def test_reset_mail_is_sent_after_the_response_so_known_and_unknown_do_the_same_work(finance):
    """The timing oracle: the mail was made and sent inside the request, so a known address
    answered slower than an unknown one. Now the request does the same work for both (the
    same queries, no mail, one message queued) and the worker sends the mail."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    work = []
    for email, ip in ((finance.email, "203.0.113.43"), ("nobody-here@example.com", "203.0.113.44")):
        with CaptureQueriesContext(connection) as queries:
            response = request_reset(email, ip)
        assert response.redirect_chain[-1][0] == "/accounts/password/reset/sent/"
        work.append([re.sub(r"'[^']*'", "?", q["sql"]) for q in queries])
    assert work[0] == work[1]  # the same statements, but for their values, in the same order
    assert mail.outbox == []  # nothing sent inside either request
    assert [name for name, _ in QUEUED] == ["accounts.tasks.password_reset_mail_send_task"] * 2
    assert [type(arg) for arg in QUEUED[0][1]] == [type(arg) for arg in QUEUED[1][1]]
    run_queued()
    assert [m.to for m in mail.outbox] == [[finance.email]]  # by the worker, known one only


def test_l9_an_inactive_account_gets_no_link(finance):
    finance.is_active = False
    finance.save()
    assert ask(finance.email).redirect_chain[-1][0] == "/accounts/password/reset/sent/"
    assert mail.outbox == []


def test_l9_reset_requests_are_limited_per_email_alike_for_known_and_unknown(settings, finance):
    """After PASSWORD_RESET_EMAIL_LIMIT requests the same refusal for any address, known or
    not (so it reveals nothing); no further mail."""
    limit = settings.PASSWORD_RESET_EMAIL_LIMIT
    answers = {}
    for email in (finance.email, "nobody-here@example.com"):
        for n in range(limit):
            ask(email, ip=f"198.51.100.{n}")
        answers[email] = ask(email, ip="198.51.100.99")
    for response in answers.values():
        assert response.status_code == 200
        assert b"Too many reset requests" in response.content
    assert len(mail.outbox) == limit
    # Two different answers would reveal the account: the refused pages are identical but
    # for the address typed in.
    assert len({page(r).replace(e.encode(), b"<typed>") for e, r in answers.items()}) == 1


def test_l9_reset_requests_are_limited_per_client_address(settings, finance):
    settings.PASSWORD_RESET_ADDRESS_LIMIT = 4
    for n in range(4):
        ask(f"someone{n}@example.com", ip="192.0.2.7")
    refused = ask(finance.email, ip="192.0.2.7")
    assert b"Too many reset requests" in refused.content
    assert mail.outbox == []
    assert ask(finance.email, ip="192.0.2.8").redirect_chain  # another address still may


def test_l9_old_reset_requests_are_purged(settings, finance):
    from datetime import timedelta

    from django.utils import timezone

    PasswordResetRequest.objects.create(email="old@example.com", ip_address="192.0.2.9")
    PasswordResetRequest.objects.update(
        created_at=timezone.now() - timedelta(seconds=3 * settings.PASSWORD_RESET_WINDOW_S)
    )
    ask(finance.email)
    assert list(PasswordResetRequest.objects.values_list("email", flat=True)) == [finance.email]


def test_l9_the_login_page_offers_the_reset():
    assert RESET_URL.encode() in Client().get("/accounts/login/").content
