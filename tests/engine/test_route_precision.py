"""P12: a route serving the brief's model at a lower precision says so on its row."""

from __future__ import annotations

from typing import Any

from engine.comparison import run_comparison
from engine.cost.contracts import ROUTE_PRECISION_DIFFERS
from procurement.snapshot import thaw
from tests.engine.snapshot_world import snapshot


def _route(rid: int, model_name: str) -> dict[str, Any]:
    return {
        "id": rid,
        "label": f"Route {rid}",
        "provider_name": f"Provider {rid}",
        "model_name": model_name,
        "model_profile_id": 7,
        "currency": "USD",
        "price_input_per_m_tokens": "0.23",
        "price_output_per_m_tokens": "0.40",
        "price_tiers": {},
        "region": "eu-west",
        "p95_ttft_ms": 300.0,
        "quoted_at": "2026-12-01T00:00:00+00:00",
        "valid_until": None,
    }


def _warnings(snap: dict[str, Any]) -> dict[str, dict[str, str]]:
    inp = thaw(snap).input
    assert inp is not None
    out = run_comparison(inp, seed=1, samples=100)
    return {row.candidate_id: {w.code: w.detail for w in row.warnings} for row in out.candidates}


def test_p12_a_turbo_or_fp8_route_for_a_bf16_brief_is_flagged() -> None:
    snap = snapshot(
        [],
        [],
        [
            _route(1, "meta-llama/Meta-Llama-3.1-70B-Instruct-Turbo"),
            _route(2, "RedHatAI/Meta-Llama-3.1-70B-Instruct-FP8"),
            _route(3, "meta-llama/Meta-Llama-3.1-70B-Instruct"),
        ],
    )
    found = _warnings(snap)
    assert "at FP8, the brief is BF16" in found["api:1"][ROUTE_PRECISION_DIFFERS]
    assert "at FP8, the brief is BF16" in found["api:2"][ROUTE_PRECISION_DIFFERS]
    assert ROUTE_PRECISION_DIFFERS not in found["api:3"]


def test_p12_an_fp8_brief_takes_an_fp8_route_as_its_own() -> None:
    snap = snapshot([], [], [_route(1, "Llama-3.1-70B-Instruct-Turbo")], weight_precision="fp8")
    assert ROUTE_PRECISION_DIFFERS not in _warnings(snap)["api:1"]
