"""Issue 17 follow-up: the brief's p95 inter-token (ITL) target reaches the engine, so a row
whose evidence has no ITL figure is flagged LATENCY_UNMEASURED naming ITL, and an estimated
row says its ITL is estimated just as it says its TTFT is."""

from __future__ import annotations

from engine.comparison import run_comparison
from engine.types import Range, WorkloadInput
from engine.warnings import candidate_warnings, latency_status
from procurement.snapshot import thaw
from tests.engine.builders import gpu
from tests.engine.snapshot_world import LLAMA_70B, quote, result, snapshot

MODEL = LLAMA_70B["name"]


def _workload(**targets: float) -> WorkloadInput:
    return WorkloadInput(
        workload_class="realtime_inference",
        monthly_accepted_outputs=Range.fixed(1e6),
        output_tokens_per_request=300,
        **targets,  # type: ignore[arg-type]
    )


def _details(workload: WorkloadInput, **cand: object) -> dict[str, str]:
    """The latency warnings only: the other checks are not what these tests are about."""
    row = gpu(has_acceptance_data=True, **cand)
    found = candidate_warnings(workload, row)
    return {w.code: w.detail for w in found if w.code.startswith("LATENCY")}


def test_measured_row_without_an_itl_figure_is_unmeasured_naming_itl() -> None:
    workload = _workload(ttft_p95_target_ms=2000, itl_p95_target_ms=50)
    found = _details(workload, p95_ttft_ms=800, latency_source="measured")
    assert set(found) == {"LATENCY_UNMEASURED"}
    assert "no ITL p95 figure" in found["LATENCY_UNMEASURED"]
    assert "TTFT" not in found["LATENCY_UNMEASURED"]


def test_itl_figures_settle_the_itl_target() -> None:
    workload = _workload(itl_p95_target_ms=50)
    fast = gpu(itl_p95_ms=30, latency_source="measured")
    slow = gpu(itl_p95_ms=80, latency_source="measured")
    assert latency_status(workload, fast) is True
    assert latency_status(workload, slow) is False
    assert (
        "p95 ITL"
        in _details(workload, itl_p95_ms=80, latency_source="measured")["LATENCY_TARGET_UNMET"]
    )
    assert _details(workload, itl_p95_ms=30, latency_source="measured") == {}


def test_estimated_row_states_itl_estimated_like_ttft() -> None:
    workload = _workload(ttft_p95_target_ms=2000, itl_p95_target_ms=50)
    detail = _details(workload, p95_ttft_ms=800, itl_p95_ms=30, latency_source="estimated")[
        "LATENCY_UNMEASURED"
    ]
    assert "TTFT p95 and ITL p95 estimated, not measured" in detail


def test_the_brief_itl_target_reaches_the_engine_and_flags_a_file_without_itl() -> None:
    snap = snapshot(
        [quote(1, "2.50")],
        [result(5, MODEL, acceptance_rate=0.95, requests_completed=1000)],
        ttft_p95_ms=2000,
        itl_p95_ms=50,
    )
    thawed = thaw(snap)
    assert thawed.input.workload.itl_p95_target_ms == 50
    row = run_comparison(thawed.input, seed=7, samples=200).candidates[0]
    codes = {w.code: w.detail for w in row.warnings}
    assert "ITL p95" in codes["LATENCY_UNMEASURED"]
    assert not row.latency_verdict.startswith("meets")
    assert row.eligible


def test_an_estimated_row_from_the_brief_states_its_itl_estimated() -> None:
    thawed = thaw(snapshot([quote(1, "2.50")], [], itl_p95_ms=100_000, ttft_p95_ms=100_000))
    assert thawed.input.candidates[0].itl_p95_ms is not None  # the roofline's figure
    row = run_comparison(thawed.input, seed=7, samples=200).candidates[0]
    detail = {w.code: w.detail for w in row.warnings}["LATENCY_UNMEASURED"]
    assert "TTFT p95 and ITL p95 estimated, not measured" in detail
    assert row.latency_verdict == "within target (estimated, not measured)"
