"""Account pages: login, logout and passwords (`login`), user management (`users`)."""

from accounts.views.login import (
    LoginView,
    PasswordChangeView,
    PasswordResetConfirmView,
    PasswordResetView,
    login_link,
)
from accounts.views.users import user_list, user_manage

__all__ = [
    "LoginView",
    "PasswordChangeView",
    "PasswordResetConfirmView",
    "PasswordResetView",
    "login_link",
    "user_list",
    "user_manage",
]
