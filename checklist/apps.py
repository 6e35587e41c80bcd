from __future__ import annotations

from typing import Any

from django.apps import AppConfig
from django.db.models.signals import post_migrate


def ensure_checklist_items(sender: AppConfig, using: str = "default", **kwargs: Any) -> None:
    """Re-create the 20 seeded items after a flush (tests that truncate tables emit
    post_migrate); the data migration seeds them on a real migrate. Idempotent.
    docs/adr/0010-checklist-items-after-flush.md says why this signal stays."""
    from checklist.items import ITEMS

    item_model = sender.get_model("ChecklistItem")
    if item_model._default_manager.using(using).count() >= len(ITEMS):
        return
    for order, (code, section, title, help_text, is_basic) in enumerate(ITEMS, start=1):
        item_model._default_manager.using(using).update_or_create(
            code=code,
            defaults={
                "section": section,
                "order": order,
                "title": title,
                "help_text": help_text,
                "is_basic": is_basic,
            },
        )


class ChecklistConfig(AppConfig):
    """The procurement checklist: items, vendor answers with evidence, reviews."""

    name = "checklist"

    def ready(self) -> None:
        post_migrate.connect(ensure_checklist_items, sender=self)
