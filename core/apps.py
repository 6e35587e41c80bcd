from django.apps import AppConfig


class CoreConfig(AppConfig):
    """The shared kernel; its one model is the append-only audit trail."""

    name = "core"
    verbose_name = "Kernel (audit trail)"

    def ready(self) -> None:
        from core import checks  # noqa: F401  (registers the deployment checks)
