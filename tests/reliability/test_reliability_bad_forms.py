"""S-11/R-07 for forms and API bodies: malformed quotes, briefs, comparisons and memory-fit
requests, through the HTML forms and the JSON API alike, and raw bodies no client should
send (broken JSON, NaN, 100,000-deep nesting, the wrong shape). Each gets a 4xx whose message
names the problem, and the row count of every domain table is unchanged.
"""

from __future__ import annotations

import html
from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone

from tests.briefs.factories_briefs import RANGES
from tests.comparisons.factories_comparisons import scenario_quotes
from tests.factories import AcceleratorFactory, ModelProfileFactory, RfqFactory
from tests.reliability.conftest import domain_counts
from tests.reliability.factories_reliability import complete_brief

pytestmark = pytest.mark.django_db
MINUTE = "%Y-%m-%dT%H:%M"


@pytest.fixture
def world(db, lead, provider_a, vendor_a, checklist_items):
    """An H100 and Llama 3.1 70B in the catalog, a complete brief, two quotes, an RFQ to A."""
    h100 = AcceleratorFactory(slug="h100-sxm-80gb", name="H100 SXM 80GB")
    ModelProfileFactory()
    cheap, fast = scenario_quotes(lead)
    rfq = RfqFactory(created_by=lead, providers=[provider_a])
    return {"h100": h100, "brief": complete_brief(lead), "quotes": [cheap, fast], "rfq": rfq}


def _json_api(api_client, user):
    api_client.force_authenticate(user)
    return api_client


def _assert_refused(response, fragment: str, before: dict[str, int]) -> None:
    """A 4xx naming the problem, and not one row more or less anywhere."""
    assert 400 <= response.status_code < 500, (response.status_code, response.content[:400])
    if response.get("Content-Type", "").startswith("application/json"):
        body = response.json()
        text = " ".join([body["detail"], *(m for ms in body["fields"].values() for m in ms)])
        assert set(body) == {"detail", "code", "fields"}
    else:
        text = html.unescape(response.content.decode())
    assert fragment.lower() in text.lower(), (fragment, text[:2000])
    assert domain_counts() == before


def _all_refused(cases: list[tuple[Any, str]], send) -> None:
    """Send every case; report every one that is not refused cleanly (not just the first)."""
    problems = []
    for change, fragment in cases:
        before = domain_counts()
        response = send(change)
        try:
            _assert_refused(response, fragment, before)
        except AssertionError as exc:
            problems.append(f"{change!r}: {exc}"[:1500])
    assert not problems, "\n".join(problems)


# --- quotes -----------------------------------------------------------------------------------


def _quote_body(**changes: Any) -> dict[str, Any]:
    body = {
        "provider": "provider-a",
        "accelerator": "h100-sxm-80gb",
        "capacity_model": "on_demand",
        "currency": "USD",
        "price_per_gpu_hour": "2.49",
        "gpus_per_node": 8,
        "region": "eu-west",
        "quoted_at": (timezone.now() - timedelta(hours=2)).isoformat(),
        "source_url": "https://example.com/p",
    }
    body.update(changes)
    return {k: v for k, v in body.items() if v is not None}


QUOTE_API_CASES = [
    ({"price_per_gpu_hour": "-2.49"}, "price_per_gpu_hour"),
    ({"price_per_gpu_hour": "1e400"}, "price_per_gpu_hour"),
    ({"price_per_gpu_hour": "NaN"}, "price_per_gpu_hour"),
    ({"currency": "XYZ"}, "currency"),
    ({"currency": "dollars"}, "currency"),
    ({"quoted_at": "yesterday"}, "quoted_at"),
    ({"quoted_at": "2026-02-31T10:00:00Z"}, "quoted_at"),
    ({"valid_until": (timezone.now() - timedelta(days=5)).isoformat()}, "valid_until"),
    ({"gpus_per_node": -8}, "gpus_per_node"),
    ({"accelerator": "h100-sxm-80gb' OR 1=1 --"}, "accelerator"),
]


def test_reliability_bad_quote_api_bodies(api_client, lead, world):
    client = _json_api(api_client, lead)

    def send(change):
        response = client.post("/api/v1/quotes/", _quote_body(**change), format="json")
        field = next(f for c, f in QUOTE_API_CASES if c is change)
        assert field in response.json()["fields"], response.json()
        return response

    _all_refused(QUOTE_API_CASES, send)


def _quote_form(world: dict[str, Any], **changes: Any) -> dict[str, Any]:
    data = {
        "accelerator": world["h100"].pk,
        "capacity_model": "on_demand",
        "currency": "USD",
        "price_per_gpu_hour": "2.49",
        "gpus_per_node": "8",
        "min_commitment_gpus": "0",
        "term_months": "0",
        "idle_billed": "on",
        "quoted_at": (timezone.now() - timedelta(hours=1)).strftime(MINUTE),
        "source_url": "https://example.com/p",
    }
    data.update(changes)
    return {k: v for k, v in data.items() if v is not None}


QUOTE_FORM_CASES = [
    ({"price_per_gpu_hour": "-3"}, "greater than zero"),
    ({"price_per_gpu_hour": "1e400"}, "no more than 14 digits"),
    ({"price_per_gpu_hour": "NaN"}, "Enter a number"),
    ({"currency": "ZZZ"}, "ISO 4217"),
    ({"quoted_at": "31/02/2026"}, "Enter a valid date/time"),
    ({"valid_until": (timezone.now() - timedelta(days=2)).strftime(MINUTE)}, "on or after"),
]


def test_reliability_bad_quote_forms_staff(login, lead, provider_a, world):
    client = login(lead)
    _all_refused(
        QUOTE_FORM_CASES,
        lambda change: client.post(
            "/catalog/quotes/new/", _quote_form(world, provider=provider_a.pk, **change)
        ),
    )


def test_reliability_bad_quote_forms_vendor_portal(login, vendor_a, world):
    client = login(vendor_a)
    url = f"/vendor/rfqs/{world['rfq'].pk}/quote/"
    _all_refused(QUOTE_FORM_CASES, lambda change: client.post(url, _quote_form(world, **change)))


# --- briefs -----------------------------------------------------------------------------------


def _brief_body(**changes: Any) -> dict[str, Any]:
    return {
        "title": "Support chat",
        "workload_class": "realtime_inference",
        "model": "llama-3-1-70b",
        "context_window_tokens": 8192,
        "p95_input_tokens": 3000,
        "p95_output_tokens": 500,
        "concurrency": 32,
        "ttft_p95_ms": 800,
        "itl_p95_ms": 60,
        "e2e_p99_ms": 20000,
        "platform_fte": 0.5,
        "allowed_regions": ["eu-west"],
        **RANGES,
        **changes,
    }


BRIEF_CASES = [
    ({"acceptance_rate_low": 0.99}, "must not exceed likely"),
    ({"utilisation_low": 0.8, "utilisation_high": 0.2}, "must not exceed"),
    (
        {"monthly_accepted_outputs_low": 5_000_000, "monthly_accepted_outputs_high": 1},
        "must not exceed",
    ),
    ({"failure_rate_likely": -0.1}, "failure_rate_likely"),
    ({"context_window_tokens": 10**30}, "context_window_tokens"),
]


def test_reliability_bad_brief_api_bodies(api_client, lead, world):
    client = _json_api(api_client, lead)
    _all_refused(
        BRIEF_CASES,
        lambda change: client.post("/api/v1/briefs/", _brief_body(**change), format="json"),
    )


def _brief_form(**changes: Any) -> dict[str, str]:
    data = {
        "title": "Support chat",
        "workload_class": "realtime_inference",
        "weight_precision": "bf16",
        "kv_precision": "bf16",
        "context_window_tokens": "8192",
        "p95_input_tokens": "3000",
        "p95_output_tokens": "500",
        "concurrency": "32",
        "ttft_p95_ms": "800",
        "itl_p95_ms": "60",
        "e2e_p99_ms": "20000",
        "peak_to_average": "2",
        "allowed_regions": "eu-west",
        "operating_model": "self_managed",
        "platform_fte": "0.5",
        "loaded_monthly_cost_per_fte": "18000",
        "horizon_months": "12",
        **{k: str(v) for k, v in RANGES.items()},
    }
    data.update(changes)
    return data


def test_reliability_bad_brief_form_ranges(login, lead, world):
    before = domain_counts()
    response = login(lead).post(
        "/briefs/new/",
        _brief_form(
            acceptance_rate_low="0.99",
            utilisation_low="0.9",
            utilisation_high="0.1",
            concurrency="-4",
            context_window_tokens="lots",
        ),
    )
    _assert_refused(response, "Acceptance rate: low (0.99) must not exceed likely (0.9).", before)
    text = html.unescape(response.content.decode())
    assert "Utilisation: low (0.9) must not exceed likely" in text
    assert "Enter a whole number" in text


# --- comparisons ------------------------------------------------------------------------------


COMPARISON_CASES = [
    ({"brief": 999_999}, "Unknown brief id 999999"),
    ({"quotes": [999_999]}, "Unknown quote id(s): 999999"),
    ({"api_routes": [888_888]}, "Unknown API route id(s): 888888"),
    ({"quotes": ["one", "two"]}, "valid integer"),
    ({"quotes": "1,2"}, "list"),
    ({"seed": -1}, "seed"),
    ({"assumptions": {"utilisation": {"low": 0.9, "likely": 0.5, "high": 0.1}}}, "utilisation"),
    ({"assumptions": {"warp_drive": True}}, "warp_drive"),
    ({"assumptions": "fast"}, "assumptions"),
]


def test_reliability_bad_comparison_api_bodies(api_client, lead, world):
    client = _json_api(api_client, lead)
    valid = {"brief": world["brief"].pk, "quotes": [q.pk for q in world["quotes"]]}
    _all_refused(
        COMPARISON_CASES,
        lambda change: client.post("/api/v1/comparisons/", {**valid, **change}, format="json"),
    )


def test_reliability_bad_comparison_form(login, lead, world):
    client = login(lead)
    before = domain_counts()
    unknown = client.post(
        "/comparisons/new/", {"brief": world["brief"].pk, "quotes": ["999999"], "seed": "x"}
    )
    _assert_refused(unknown, "Select a valid choice", before)
    assert "Enter a whole number" in html.unescape(unknown.content.decode())
    missing_brief = client.post("/comparisons/new/", {"brief": "999999"})
    assert missing_brief.status_code == 404
    assert domain_counts() == before


# --- memory fit -------------------------------------------------------------------------------

FIT = {
    "model": "llama-3-1-70b",
    "context_tokens": 8192,
    "concurrent_sequences": 32,
    "accelerator": "h100-sxm-80gb",
}
FIT_CASES = [
    ({"model": "no-such-model"}, "Unknown model"),
    ({"context_tokens": "many"}, "valid integer"),
    ({"context_tokens": 10**30}, "context_tokens"),
    ({"concurrent_sequences": -1}, "greater than or equal to 1"),
    ({"gpus": 0}, "greater than or equal to 1"),
    ({"mode": "dreaming"}, "Unknown mode"),
    ({"weight_precision": ["bf16"]}, "weight_precision"),
]


def test_reliability_memory_fit_junk(api_client, lead, world):
    client = _json_api(api_client, lead)
    _all_refused(
        FIT_CASES,
        lambda change: client.post("/api/v1/memory-fit/", {**FIT, **change}, format="json"),
    )


def test_reliability_memory_fit_form_junk(login, lead, world):
    before = domain_counts()
    response = login(lead).post(
        "/briefs/memory-fit/",
        {**FIT, "mode": "inference", "context_tokens": "-1", "accelerator": "nope"},
    )
    _assert_refused(response, "Select a valid choice", before)
    assert "greater than or equal to 1" in html.unescape(response.content.decode())


# --- raw bodies no client should send -----------------------------------------------------------

WRITE_ENDPOINTS = [
    "/api/v1/quotes/",
    "/api/v1/briefs/",
    "/api/v1/comparisons/",
    "/api/v1/memory-fit/",
    "/api/v1/providers/",
]
RAW_BODIES = [
    (b'{"title": "cut off', "JSON parse error"),
    (b'{"price_per_gpu_hour": NaN}', "JSON parse error"),
    (b"[" * 100_000 + b"]" * 100_000, "JSON parse error"),
    (b'{"a":' * 50_000 + b"1" + b"}" * 50_000, "JSON parse error"),
    (b"\xff\xfe\x00garbage", "JSON parse error"),
    (b"[1, 2, 3]", ""),
    (b"null", ""),
    (b'"just a string"', ""),
]


def test_reliability_raw_junk_bodies_are_clear_400s(api_client, admin_member, world):
    client = _json_api(api_client, admin_member)
    for url in WRITE_ENDPOINTS:
        _all_refused(
            RAW_BODIES,
            lambda body, url=url: client.generic(
                "POST", url, body, content_type="application/json"
            ),
        )
        form = client.generic("POST", url, b"a=1&b=2", content_type="text/plain")
        assert form.status_code == 415, url
        assert "Unsupported media type" in form.json()["detail"]
