from django.apps import AppConfig


class FinopsConfig(AppConfig):
    """FOCUS export of decisions, billing imports, actual outputs and reconciliation."""

    name = "finops"

    def ready(self) -> None:
        from finops import selectors
        from procurement.selectors import dashboard

        dashboard.on_dashboard_cards(selectors.drift_cards)
