"""A13: every figure a vendor states on a quote is read by the cost model (the snapshot
adapter carries it to the engine), or is on the adapter's explicit "shown, not costed" list
with its reason."""

from __future__ import annotations

import inspect

from django.db import models

from catalog.models import Quote
from procurement.snapshot import quotes as adapter


def test_every_decimal_a_quote_states_is_costed_or_said_not_to_be() -> None:
    source = inspect.getsource(adapter)
    start = source.index("SHOWN_NOT_COSTED = {")
    source = source[:start] + source[source.index("\n}\n", start) :]  # the reads, not the list
    for field in Quote._meta.get_fields():
        if not isinstance(field, models.DecimalField):
            continue
        costed = f'"{field.name}"' in source
        listed = field.name in adapter.SHOWN_NOT_COSTED
        assert costed != listed, field.name


def test_the_overage_rate_is_costed() -> None:
    assert "overage_rate_per_gpu_hour" not in adapter.SHOWN_NOT_COSTED
