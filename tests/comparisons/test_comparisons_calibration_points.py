"""The calibration ledger per operating point (issue 24, N3): uploads through the API, the
roofline arithmetic written out in tests/comparisons/sweep_world.py (`roofline_tokens_per_s`).

The audit's brief and quote (tests/comparisons/sweep_world.py): Llama 3.1 8B in BF16 on one
H100 SXM (989 dense BF16 TFLOPS, 3.35 TB/s), 1,000 tokens in and 200 out, real-time.
"""

from __future__ import annotations

from decimal import Decimal

import pytest

from catalog.models import CalibrationEntry
from tests.comparisons.sweep_world import (
    audit_brief,
    compare,
    h100_quote,
    roofline_tokens_per_s,
    row,
    upload,
    vllm_file,
)

pytestmark = pytest.mark.django_db

SWEEP = ((4, 800.0, 0.1), (8, 1500.0, 0.2), (16, 2500.0, 0.4), (32, 3500.0, 0.45))


def _upload_sweep(client, quote, brief, *, scale: float = 1.0, sweep: str = "") -> None:
    for concurrency, tokens, ttft in SWEEP:
        body = vllm_file(concurrency, tokens * scale, ttft_s=ttft)
        upload(client, quote, brief, body, sweep=sweep, name=f"c{concurrency}.json")


def test_n3_one_pair_per_operating_point_at_its_own_concurrency(api_client, lead, engineer):
    """Four uploads of one sweep, compared under two briefs: four pairs (one per point), each
    against the roofline at that point's own concurrency and lengths, counted as one result.
    Before: one pair per brief, the c16 point against an estimate at the brief's shape."""
    brief, quote = audit_brief(lead), h100_quote(lead)
    api_client.force_authenticate(engineer)
    _upload_sweep(api_client, quote, brief)
    comparison = compare(lead, brief, [quote])
    assert row(comparison, quote).performance["evidence"]["kind"] == "measured"
    entries = CalibrationEntry.objects.order_by("estimated_tokens_per_s")
    assert [e.shape for e in entries] == [f"in 1,000 / out 200 / c{c} / 1 GPU" for c, _, _ in SWEEP]
    assert len({e.benchmark_result_id for e in entries}) == 1  # one sweep, one result
    for entry, (concurrency, measured, _) in zip(entries, SWEEP, strict=True):
        # c4: KV 131,072 B × 1,100 tokens = 144.2 MB a sequence; ITL (16e9 + 4 × 144.2e6) /
        # 2.01e12 = 8.247 ms; TTFT 2 × 8e9 × 1,000 / 3.956e14 = 40.445 ms;
        # 4 × 200 / (4 × 0.040445 + 200 × 0.008247) = 441.7 tok/s, …
        estimate = roofline_tokens_per_s(concurrency)
        assert entry.estimated_tokens_per_s == pytest.approx(estimate, rel=1e-5)
        assert entry.measured_tokens_per_s == measured
        assert entry.measured_over_estimate == pytest.approx(measured / estimate, rel=1e-5)
        assert (entry.precision, entry.workload_class) == ("bf16", "realtime_inference")
    assert roofline_tokens_per_s(4) == pytest.approx(441.7, abs=0.1)
    # the same file under a brief of another concurrency: the same measurements, no new pair
    compare(lead, audit_brief(lead, concurrency=8, title="c8"), [quote])
    assert CalibrationEntry.objects.count() == 4


def _calibrated_row(lead, quote, **brief_fields):
    """An estimated row of the same model on the same H100: the uploads above are bound to
    the first brief, so another brief's row rests on the roofline and the ledger alone."""
    brief = audit_brief(lead, **brief_fields)
    got = row(compare(lead, brief, [quote]), quote)
    assert got.performance["evidence"]["kind"] == "estimated"
    return got


def test_n3_pairs_move_only_their_precision_and_workload_class(api_client, lead, engineer):
    """The pairs of a BF16 real-time sweep widen the next BF16 real-time estimate of Llama 3.1
    8B on the H100, and leave an FP8 brief's and a batch brief's at the default spread
    (before: every estimate of the model on the accelerator moved)."""
    brief, quote = audit_brief(lead), h100_quote(lead)
    api_client.force_authenticate(engineer)
    _upload_sweep(api_client, quote, brief)
    compare(lead, brief, [quote])
    same = _calibrated_row(lead, quote)
    assert same.performance["calibration_applied"].startswith("default spread widened")
    assert (
        "1 benchmark result of Llama 3.1 8B at bf16 (Real-time inference)"
        in (same.performance["calibration_applied"])
    )
    fp8 = _calibrated_row(lead, quote, weight_precision="fp8", kv_precision="fp8")
    assert "calibration_applied" not in fp8.performance
    batch = _calibrated_row(lead, quote, workload_class="batch_inference", batch_size=16)
    assert "calibration_applied" not in batch.performance


def test_n3_the_row_shows_the_throughput_it_is_costed_at(api_client, lead, engineer):
    """Three H100 offers, each measured by its own sweep (three results) at 0.9×, 1× and 1.1×
    the audit's throughputs: the centre moves to the median of the results' ratios, the row's
    tokens/s is that calibrated figure and its cost is the hand formula at that figure; the
    band stays at least the default."""
    brief = audit_brief(lead)
    quotes = [h100_quote(lead) for _ in range(3)]
    api_client.force_authenticate(engineer)
    for scale, quote in zip((0.9, 1.0, 1.1), quotes, strict=True):
        _upload_sweep(api_client, quote, brief, scale=scale)
    compare(lead, brief, quotes)
    assert CalibrationEntry.objects.count() == 12  # 3 results × 4 points
    quote = quotes[0]
    # each result's ratio is the median of its four points' measured / roofline (the mean of
    # the middle two); the results' are 0.9×, 1× and 1.1× the 1.0× sweep's, so the median
    # over results is the 1.0× sweep's own
    ratios = sorted(m / roofline_tokens_per_s(c) for c, m, _ in SWEEP)
    centre = (ratios[1] + ratios[2]) / 2
    got = _calibrated_row(lead, quote)
    perf = got.performance
    assert perf["calibration_applied"].startswith(f"estimate × {centre:.2f}")
    assert "3 benchmark results of Llama 3.1 8B" in perf["calibration_applied"]
    roofline = roofline_tokens_per_s(16)  # the brief's own shape, c16
    assert perf["estimated_tokens_per_s"] == pytest.approx(roofline, abs=1e-3)
    assert perf["tokens_per_s"] == pytest.approx(roofline * centre, abs=1e-3)
    # 1e6 accepted / 0.8 = 1.25e6 requests × 200 tokens / tok/s / 3,600 / 0.5 × $2.50
    hours = Decimal(1_250_000 * 200) / Decimal(str(perf["tokens_per_s"])) / 3600
    hand = (hours / Decimal("0.5") * Decimal("2.50")).quantize(Decimal("0.01"))
    assert abs(got.total_usd - hand) <= Decimal("0.01")
    # three results move the centre, never narrow the band below the default 0.75–1.10
    assert got.p10 <= got.p50 <= got.p90
    low, high = perf["calibration_applied"].rsplit("p10–p90 ", 1)[1].split("–")
    assert float(low) <= round(centre * 0.75, 2) + 0.005
    assert float(high) >= round(centre * 1.10, 2) - 0.005
