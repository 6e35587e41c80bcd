from django.apps import AppConfig


class BriefsConfig(AppConfig):
    """Workload briefs: what the work is, versioned, with its memory fit."""

    name = "briefs"
    verbose_name = "Workload briefs"
