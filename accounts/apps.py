from django.apps import AppConfig
from django.db.models.signals import post_save, pre_save


class AccountsConfig(AppConfig):
    """Users, roles and provider organisations."""

    name = "accounts"

    def ready(self) -> None:
        from django.contrib.auth.signals import user_logged_in

        from accounts import signals
        from accounts.middleware import session_started
        from accounts.models import User

        user_logged_in.connect(session_started, dispatch_uid="session-lifetime")
        user_logged_in.connect(signals.device_remember, dispatch_uid="known-device")
        pre_save.connect(signals.user_pre_save, sender=User, dispatch_uid="user-credentials-pre")
        post_save.connect(signals.user_post_save, sender=User, dispatch_uid="user-credentials")
