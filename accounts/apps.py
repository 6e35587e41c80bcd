from django.apps import AppConfig


class AccountsConfig(AppConfig):
    """Users, roles and provider organisations."""

    name = "accounts"
