from django.apps import AppConfig


class ChecklistConfig(AppConfig):
    """The procurement checklist: items, vendor answers with evidence, reviews."""

    name = "checklist"
