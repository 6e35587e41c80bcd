"""Upsert the checked-in accelerators and model profiles (catalog/data/*.json) by slug."""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import date
from pathlib import Path
from typing import Any, TypeVar

from django.db import transaction

from catalog.models import Accelerator, ModelProfile

_Row = TypeVar("_Row", Accelerator, ModelProfile)

DATA_DIR = Path(__file__).resolve().parent.parent / "data"


def _rows(path: Path) -> list[dict[str, Any]]:
    rows = json.loads(path.read_text(encoding="utf-8"))
    if not isinstance(rows, list):
        raise ValueError(f"{path.name} must hold a JSON list of objects.")
    return rows


def _accelerator_defaults(row: dict[str, Any]) -> dict[str, Any]:
    fields = {f.name for f in Accelerator._meta.concrete_fields} - {"id", "slug"}
    values = {k: v for k, v in row.items() if k in fields}
    if isinstance(values.get("verified_on"), str):
        values["verified_on"] = date.fromisoformat(values["verified_on"])
    values["notes"] = values.get("notes") or ""
    return values


def _profile_defaults(row: dict[str, Any]) -> dict[str, Any]:
    fields = {f.name for f in ModelProfile._meta.concrete_fields} - {"id", "slug", "created_by"}
    values = {k: v for k, v in row.items() if k in fields}
    for text in ("notes", "license", "source_url", "family", "published_precision"):
        values[text] = values.get(text) or ""
    values["is_custom"] = False
    return values


@transaction.atomic
def catalog_load(data_dir: Path = DATA_DIR) -> dict[str, dict[str, int]]:
    """Create or update every row; rows not in the files are left alone. Returns counts.

    A handful of queries whatever the row count: one read, one bulk insert, one bulk update.
    """
    return {
        "Accelerator": _load(Accelerator, data_dir / "accelerators.json", _accelerator_defaults),
        "ModelProfile": _load(ModelProfile, data_dir / "model_profiles.json", _profile_defaults),
    }


def _load(
    model: type[_Row], path: Path, defaults: Callable[[dict[str, Any]], dict[str, Any]]
) -> dict[str, int]:
    rows = {row["slug"]: defaults(row) for row in _rows(path)}
    existing = {obj.slug: obj for obj in model.objects.filter(slug__in=rows)}
    new = [model(slug=slug, **values) for slug, values in rows.items() if slug not in existing]
    fields = sorted({name for values in rows.values() for name in values})
    for slug, obj in existing.items():
        for name, value in rows[slug].items():
            setattr(obj, name, value)
    model.objects.bulk_create(new)
    if existing:
        model.objects.bulk_update(list(existing.values()), fields)
    return {"created": len(new), "updated": len(existing)}
