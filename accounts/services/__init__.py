"""Account writes: login throttling and client address (`login`), known devices and the
one-time sign-in link (`devices`), password reset (`password_reset`); user management by
administrators (`users`). Re-exported so callers import `accounts.services`."""

from accounts.services.login import (
    client_ip,
    login_blocked,
    login_failure_record,
    login_refusal,
    login_refused,
    login_succeeded,
    throttle_key,
)
from accounts.services.password_reset import (
    password_reset_mail_later,
    password_reset_mail_send,
    password_reset_refusal,
    password_reset_requested,
)
from accounts.services.users import user_update

__all__ = [
    "client_ip",
    "login_blocked",
    "login_failure_record",
    "login_refusal",
    "login_refused",
    "login_succeeded",
    "password_reset_mail_later",
    "password_reset_mail_send",
    "password_reset_refusal",
    "password_reset_requested",
    "throttle_key",
    "user_update",
]
