from django.apps import AppConfig
from django.db.models.signals import post_save, pre_save


class AccountsConfig(AppConfig):
    """Users, roles and provider organisations."""

    name = "accounts"

    def ready(self) -> None:
        from accounts import signals
        from accounts.models import User

        pre_save.connect(signals.user_pre_save, sender=User, dispatch_uid="user-credentials-pre")
        post_save.connect(signals.user_post_save, sender=User, dispatch_uid="user-credentials")
