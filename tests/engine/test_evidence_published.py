"""Issue 36, published results as evidence: the matching rules' regime, ranking and band
(engine/evidence.py, `match_published`)."""

from __future__ import annotations

import pytest

from engine.evidence import (
    EvidenceTarget,
    Published,
    ResultWorkload,
    choose_evidence,
    match_result,
    round_order,
)


def _published(
    rid: str,
    scenario: str,
    *,
    per_gpu_gpus: int = 8,
    round_: str = "MLPerf Inference v4.1",
    submitter: str = "NVIDIA",
    ttft: float | None = None,
    tpot: float | None = None,
    off_median: float = 0.0,
    model: str = "Llama 2 70B",
    accelerator: str = "h200-sxm-141gb",
) -> ResultWorkload:
    return ResultWorkload(
        result_id=rid,
        accelerator=accelerator,
        model_name=model,
        model_profile_id=7 if model == "Llama 2 70B" else None,
        precision="fp8",
        gpu_count=per_gpu_gpus,
        published=Published(
            round=round_,
            submitter=submitter,
            software="TensorRT 10.2.0, CUDA 12.4",
            scenario=scenario,
            ttft_limit_ms=ttft,
            tpot_limit_ms=tpot,
            spread_low=0.9,
            spread_high=1.05,
            off_median=off_median,
            precision="fp8",
        ),
    )


def _target(**kw: object) -> EvidenceTarget:
    base: dict[str, object] = {
        "accelerator": "h200-sxm-141gb",
        "gpus": 2,
        "model_name": "Llama 2 70B",
        "model_profile_id": 7,
        "model_params_b": 68.98,
        "model_family": "Llama 2",
        "precision": "bf16",
    }
    base.update(kw)
    return EvidenceTarget(**base)  # type: ignore[arg-type]


OFFLINE = _published("published:1", "Offline")
SERVER = _published("published:2", "Server", ttft=2000, tpot=200)


def test_offline_counts_for_a_batch_brief_and_not_for_a_latency_bound_one() -> None:
    batch = match_result(OFFLINE, _target(batch=True))
    assert batch.kind == "published"
    assert batch.reason == (
        "published · MLPerf Inference v4.1 · NVIDIA · TensorRT 10.2.0, CUDA 12.4 · Offline"
    )
    # 8 GPUs measured, 2 costed: the per-GPU figure × 2 (2 / 8 of the system's throughput)
    assert batch.throughput_factor == pytest.approx(0.25)
    assert (batch.spread_low_factor, batch.spread_high_factor) == (0.9, 1.05)
    assert any("quality-equivalent to the brief's bf16" in a for a in batch.adjustments)
    online = match_result(OFFLINE, _target(batch=False, ttft_target_ms=3000))
    assert online.kind == "ignored"
    assert "no latency limit" in online.reason


def test_server_counts_only_where_the_briefs_targets_are_as_loose_as_its_limits() -> None:
    loose = _target(ttft_target_ms=2000, itl_target_ms=250)
    assert match_result(SERVER, loose).kind == "published"
    no_targets = _target()
    assert match_result(SERVER, no_targets).kind == "published"
    tight = match_result(SERVER, _target(ttft_target_ms=800, itl_target_ms=250))
    assert tight.kind == "ignored"
    assert "TTFT limit 2,000 ms (p99) is looser than the brief's 800 ms target" in tight.reason
    tight_tpot = match_result(SERVER, _target(ttft_target_ms=2500, itl_target_ms=40))
    assert "time-per-output-token limit 200 ms" in tight_tpot.reason
    assert match_result(SERVER, _target(batch=True)).kind == "ignored"


def test_another_model_or_accelerator_is_ignored() -> None:
    other = _published("published:3", "Offline", model="GPT-J 6B")
    assert match_result(other, _target(batch=True)).kind == "ignored"
    elsewhere = _published("published:4", "Offline", accelerator="mi300x-192gb")
    assert match_result(elsewhere, _target(batch=True)).kind == "ignored"


def test_the_teams_measurement_even_a_proxy_outranks_a_published_result() -> None:
    ours = ResultWorkload(
        result_id=12,
        accelerator="h200-sxm-141gb",
        model_name="Llama 2 70B",
        model_profile_id=7,
        precision="bf16",
        gpu_count=4,  # another GPU count: a proxy, still the team's own
    )
    best, _ = choose_evidence([OFFLINE, ours], _target(batch=True))
    assert best is not None
    assert best.result_id == 12
    assert best.kind == "proxy"


def test_a_newer_round_beats_an_older_one_then_the_median_beats_the_fastest() -> None:
    old = _published("published:5", "Offline", round_="MLPerf Inference v4.0")
    fast = _published("published:6", "Offline", submitter="Fast", off_median=0.2)
    typical = _published("published:7", "Offline", submitter="Typical", off_median=0.01)
    best, _ = choose_evidence([old, fast, typical], _target(batch=True))
    assert best is not None
    assert best.result_id == "published:7"
    best, _ = choose_evidence([old], _target(batch=True))
    assert best is not None
    assert best.result_id == "published:5"
    assert round_order("MLPerf Inference v4.1") > round_order("MLPerf Inference v4.0")
    assert round_order("MLPerf Inference v5.0") > round_order("MLPerf Inference v4.1")


def test_server_is_preferred_to_interactive_when_the_brief_allows_both() -> None:
    interactive = _published("published:8", "Interactive", ttft=450, tpot=40)
    best, _ = choose_evidence(
        [interactive, SERVER], _target(ttft_target_ms=2000, itl_target_ms=200)
    )
    assert best is not None
    assert best.result_id == "published:2"
    best, _ = choose_evidence([interactive, SERVER], _target(ttft_target_ms=500, itl_target_ms=50))
    assert best is not None
    assert best.result_id == "published:8"


def test_interactive_counts_only_for_a_brief_as_loose_as_its_limits() -> None:
    """Interactive holds TTFT 450 ms and 40 ms per output token at p99: a brief with those
    targets takes it, a tighter one or a batch brief does not."""
    interactive = _published("published:9", "Interactive", ttft=450, tpot=40)
    assert match_result(interactive, _target(ttft_target_ms=450, itl_target_ms=40)).kind == (
        "published"
    )
    tight = match_result(interactive, _target(ttft_target_ms=300, itl_target_ms=40))
    assert tight.kind == "ignored"
    assert "TTFT limit 450 ms (p99) is looser than the brief's 300 ms target" in tight.reason
    tight_tpot = match_result(interactive, _target(ttft_target_ms=450, itl_target_ms=30))
    assert "time-per-output-token limit 40 ms (p99)" in tight_tpot.reason
    batch = match_result(interactive, _target(batch=True))
    assert batch.kind == "ignored"
    assert "Offline's regime, not Interactive's" in batch.reason
