"""Account writes: login throttling, client address and password reset (`login`); user
management by administrators (`users`). Re-exported so callers import `accounts.services`."""

from accounts.services.login import (
    client_ip,
    login_blocked,
    login_failure_record,
    login_failures_clear,
    login_refusal,
    login_refused,
    login_succeeded,
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
    "login_failures_clear",
    "login_refusal",
    "login_refused",
    "login_succeeded",
    "password_reset_mail_later",
    "password_reset_mail_send",
    "password_reset_refusal",
    "password_reset_requested",
    "user_update",
]
