"""A9: the checklist items are plain data; the seeding migration holds the same frozen copy."""

from __future__ import annotations

import importlib

from checklist.items import ITEMS


def test_the_migration_and_the_data_module_hold_the_same_items() -> None:
    migration = importlib.import_module("checklist.migrations.0002_seed_items")
    assert migration.ITEMS == ITEMS
    assert len(ITEMS) == 20
    assert len({code for code, *_ in ITEMS}) == 20
