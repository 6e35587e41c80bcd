"""Rules shared by forms, the API and the importers (catalog.validation)."""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal

import pytest
from django.utils import timezone

from catalog import validation

pytestmark = pytest.mark.django_db

LLAMA = {
    "params_total_b": 70.6,
    "params_active_b": 70.6,
    "layers": 80,
    "hidden_size": 8192,
    "attention_heads": 64,
    "kv_heads": 8,
    "head_dim": 128,
    "max_context": 131072,
}


def test_a_real_model_passes():
    assert validation.model_profile_rule_errors(LLAMA) == {}


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"params_total_b": -1}, "params_total_b"),
        ({"params_active_b": 100}, "params_active_b"),
        ({"kv_heads": 128}, "kv_heads"),
        ({"kv_heads": 7}, "kv_heads"),
        ({"head_dim": 4096}, "head_dim"),
        ({"layers": 0}, "layers"),
        ({"sliding_window_layers": 10}, "sliding_window"),
        ({"sliding_window": 4096, "sliding_window_layers": 81}, "sliding_window_layers"),
        ({"max_context": 10}, "max_context"),
    ],
)
def test_impossible_models_are_refused(change, field):
    assert field in validation.model_profile_rule_errors({**LLAMA, **change})


def test_currency_codes():
    assert validation.currency_errors("EUR") == []
    assert validation.currency_errors("eur") == []
    assert "ISO 4217" in validation.currency_errors("EURO")[0]
    assert validation.currency_errors("")


def test_fx_rules():
    today = timezone.now().date()
    ok = {"currency": "EUR", "rate_to_base": Decimal("1.08"), "as_of": today}
    assert validation.fx_rule_errors(ok, base_currency="USD") == {}
    assert "rate_to_base" in validation.fx_rule_errors(
        {**ok, "rate_to_base": Decimal(0)}, base_currency="USD"
    )
    assert "as_of" in validation.fx_rule_errors(
        {**ok, "as_of": today + timedelta(days=1)}, base_currency="USD"
    )
    assert "currency" in validation.fx_rule_errors({**ok, "currency": "USD"}, base_currency="USD")


def test_rack_scale_limit(catalog):
    assert validation.max_gpus_per_node_for(catalog["gb200-per-gpu-186gb"]) == 72
    assert validation.max_gpus_per_node_for(catalog["rtx-4090-24gb"]) == 8
    assert validation.max_gpus_per_node_for(catalog["h100-sxm-80gb"]) == 8


def test_quote_rules_allow_a_little_clock_skew(h100):
    values = {
        "currency": "USD",
        "capacity_model": "on_demand",
        "gpus_per_node": 8,
        "price_per_gpu_hour": Decimal("2"),
        "quoted_at": timezone.now() + timedelta(minutes=2),
    }
    assert validation.quote_rule_errors(values, accelerator=h100) == {}
