from django.apps import AppConfig


class CoreConfig(AppConfig):
    """The shared kernel; its one model is the append-only audit trail."""

    name = "core"
    verbose_name = "Kernel (audit trail)"
