"""The serving engine, its major version and the KV-cache precision in the match (issue 24,
N5), through the upload API: another setup is a proxy with its reason, never "measured".

The audit's brief and quote (tests/comparisons/sweep_world.py), the brief naming vLLM 0.6.
"""

from __future__ import annotations

from decimal import Decimal

import pytest

from benchmarks.selectors import evidence_verdict
from tests.comparisons.sweep_world import audit_brief, compare, h100_quote, row, upload, vllm_file

pytestmark = pytest.mark.django_db


def _vllm_brief(lead):
    return audit_brief(lead, serving_engine="vLLM", serving_engine_version="0.6.3")


def test_n5_a_tensorrt_llm_result_is_a_proxy_for_a_vllm_brief(api_client, lead, engineer):
    """c16 at 2,500 tok/s measured with TensorRT-LLM: it counted as "measured" for every
    brief. Now it is a proxy, its throughput kept (1.25e6 × 200 / 2,500 / 3,600 / 0.5 ×
    2.50 = 138.89 at the likely value) and its band wider than the same file's measured with
    vLLM."""
    brief = _vllm_brief(lead)
    trt, vllm = h100_quote(lead), h100_quote(lead)
    api_client.force_authenticate(engineer)
    result = upload(api_client, trt, brief, vllm_file(16, 2500), serving_engine="TensorRT-LLM")
    proxy = row(compare(lead, brief, [trt]), trt)
    upload(
        api_client, vllm, brief, vllm_file(16, 2500), serving_engine="vllm", engine_version="0.6.1"
    )
    measured = row(compare(lead, brief, [vllm]), vllm)
    assert proxy.perf_source == "proxy"
    assert (
        "measured with TensorRT-LLM, the brief serves with vLLM"
        in (proxy.performance["evidence"]["reason"])
    )
    assert any("no public factor" in a for a in proxy.performance["evidence"]["adjustments"])
    assert proxy.total_usd == measured.total_usd == Decimal("138.89")
    assert proxy.p10 < measured.p10 or proxy.p90 > measured.p90  # the proxy's wider band
    assert measured.perf_source == "measured"
    # the benchmark pages judge the result by the same rule
    verdict = evidence_verdict(result, brief)
    assert verdict.kind == "proxy"
    assert "TensorRT-LLM" in verdict.reason


def test_n5_another_major_version_and_kv_precision_are_proxies(api_client, lead, engineer):
    """vLLM 0.5.4 for a vLLM 0.6 brief, and a file run with `--kv-cache-dtype fp8` for a BF16
    KV-cache brief: both proxies, each with its reason."""
    brief = _vllm_brief(lead)
    older, fp8_kv = h100_quote(lead), h100_quote(lead)
    api_client.force_authenticate(engineer)
    upload(
        api_client, older, brief, vllm_file(16, 2500), serving_engine="vLLM", engine_version="0.5.4"
    )
    upload(
        api_client,
        fp8_kv,
        brief,
        vllm_file(16, 2500, kv_cache_dtype="fp8"),
        serving_engine="vLLM",
        engine_version="0.6.3",
    )
    comparison = compare(lead, brief, [older, fp8_kv])
    first, second = row(comparison, older), row(comparison, fp8_kv)
    assert (first.perf_source, second.perf_source) == ("proxy", "proxy")
    assert (
        "measured with vLLM 0.5.4, the brief serves with vLLM 0.6.3 (another major version)"
        in (first.performance["evidence"]["reason"])
    )
    assert "KV cache at fp8, the brief's is bf16" in second.performance["evidence"]["reason"]
    # a brief naming no engine takes the 0.5.4 file as measured, as before
    any_engine = audit_brief(lead)
    upload(api_client, older, any_engine, vllm_file(16, 2500), serving_engine="vLLM")
    assert row(compare(lead, any_engine, [older]), older).perf_source == "measured"
