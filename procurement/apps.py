from django.apps import AppConfig


class ProcurementConfig(AppConfig):
    """Workload briefs, comparisons, reviews and the audit trail."""

    name = "procurement"
    verbose_name = "Procurement decisions"
