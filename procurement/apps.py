from django.apps import AppConfig


class ProcurementConfig(AppConfig):
    """Workload briefs, comparisons, reviews and the audit trail."""

    name = "procurement"
    verbose_name = "Procurement decisions"

    def ready(self) -> None:
        # A quote revision or withdrawal flags the approved decisions resting on it, in the
        # same transaction (catalog cannot import this app, so it calls a registered hook).
        from catalog import hooks
        from procurement.services.price_changes import flag_approved_decisions

        hooks.on_quote_replaced(flag_approved_decisions)
