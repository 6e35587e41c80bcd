"""Media rows (image, video, audio generation): assets per GPU-second and their evidence.

Pure: no Django. A media row is measured from a benchmark result of this quote, else of its
accelerator, with three rules the LLM rows also follow (snapshot/evidence.py):

- only a render benchmark counts: a result that measured tokens (an LLM serving file: output
  tokens/s, a TTFT) is ignored with its reason, whatever model the brief names (issue 37,
  P2: an LLM run's requests/s read as images/s recommended the wrong GPU);
- a result of another model than the brief's counts for nothing, and the row says why (a
  render of one diffusion model says little about another); a brief naming no model takes
  any render on the hardware, as media briefs often name only a model class;
- the measured acceptance and failure rates replace the brief's in the cost, and the row
  says which was used; `NO_ACCEPTANCE_DATA` goes only when a measured rate is used;
- among the results that count: the brief's own first, then the newest.
"""

from __future__ import annotations

from core.values import float_or_none
from engine.evidence import same_model_name
from engine.memory.spec import GpuSpec
from engine.types import Range
from procurement.snapshot.context import Context, rounded
from procurement.snapshot.evidence import rate_range
from procurement.snapshot.facts import EngineExtras, PerfFacts
from procurement.snapshot.schema import AcceleratorRow, FrozenResult, ModelRow, QuoteRow


def _other_model(ctx: Context, result: FrozenResult) -> str | None:
    """Why ``result`` measured another model than the brief's (None: it counts)."""
    model: ModelRow = ctx.snap.get("model") or {}
    wanted = model.get("name") or ""
    if not wanted:
        return None
    theirs = result.get("model_name") or ""
    if result.get("model_profile_id") is not None and model.get("id") is not None:
        same = result["model_profile_id"] == model["id"]
    else:
        same = same_model_name(theirs, wanted)
    if same:
        return None
    return f"benchmark of {theirs or 'an unnamed model'} ignored: the brief is {wanted}"


def _not_a_render(result: FrozenResult) -> str | None:
    """Why ``result`` is an LLM serving run, not a render benchmark (None: it may count)."""
    tokens = any(
        (float_or_none(result.get(key)) or 0) > 0
        for key in ("output_tokens_per_s", "tokens_per_s_per_gpu", "ttft_p95_ms", "itl_p95_ms")
    )
    if not tokens:
        return None
    name = result.get("model_name") or "an unnamed model"
    return (
        f"benchmark of {name} ignored: it measured tokens (an LLM serving run), not rendered assets"
    )


def _usable(result: FrozenResult) -> bool:
    return bool(result.get("request_throughput_rps")) and bool(result.get("gpu_count"))


def choose_media_result(
    ctx: Context, quote: QuoteRow, acc: AcceleratorRow
) -> tuple[FrozenResult | None, list[str]]:
    """(this quote's result, else the accelerator's, with its scope; the reasons others were
    ignored)."""
    ignored: set[str] = set()
    brief_id = ctx.brief.get("id")
    for scope, found in (
        ("quote", [r for r in ctx.results if r.get("quote_id") == quote["id"]]),
        ("accelerator", [r for r in ctx.results if r.get("accelerator") == acc["slug"]]),
    ):
        counting = []
        for result in filter(_usable, found):
            reason = _not_a_render(result) or _other_model(ctx, result)
            if reason is None:
                counting.append(result)
            else:
                ignored.add(reason)
        if counting:
            best = max(
                counting,
                key=lambda r: (r.get("brief_id") == brief_id, int(r.get("result_id") or 0)),
            )
            chosen: FrozenResult = {**best, "scope": scope}
            return chosen, sorted(ignored)
    return None, sorted(ignored)


def _measured_rates(result: FrozenResult) -> tuple[EngineExtras, str | None]:
    """(engine extras for the measured acceptance / failure, the acceptance's words)."""
    extras = EngineExtras()
    source = None
    n = float_or_none(result.get("requests_completed"))
    acceptance = float_or_none(result.get("acceptance_rate"))
    if acceptance is not None and 0 < acceptance <= 1:
        extras.acceptance_rate = rate_range(acceptance, n)
        source = f"measured ({acceptance:.3f}, result {result.get('result_id')})"
    failure = float_or_none(result.get("failure_rate"))
    if failure is not None and 0 <= failure < 1:
        extras.failure_rate = rate_range(failure, n) if failure > 0 else Range.fixed(0.0)
    return extras, source


def media_perf(
    ctx: Context, quote: QuoteRow, acc: AcceleratorRow, gpu: GpuSpec
) -> tuple[PerfFacts, EngineExtras]:
    """Assets per GPU-second: measured requests/s per GPU, else the brief's GPU-seconds per
    asset read as measured on the reference GPU (`media_reference_tflops`, H100 SXM BF16
    dense) and scaled by this GPU's BF16 dense TFLOPS (diffusion is compute-bound).

    Returns the row's performance facts and the engine-facing extras (measured acceptance /
    failure)."""
    reference = float(ctx.a["media_reference_tflops"])
    seconds = float(ctx.brief.get("gpu_seconds_per_asset") or 0)
    tflops = gpu.bf16_dense_tflops or reference
    perf: PerfFacts = {
        "outputs_per_s": rounded(tflops / (seconds * reference), 6) if seconds else None,
        "gpu_seconds_per_asset": rounded(seconds * reference / tflops, 3) if seconds else None,
        "throughput_source": "estimated",
        "latency_source": None,
    }
    measured, ignored = choose_media_result(ctx, quote, acc)
    if ignored:
        perf["ignored_evidence"] = ignored
    extras = EngineExtras()
    source = None
    if measured is not None:
        rate = float(measured.get("request_throughput_rps") or 0) / float(measured["gpu_count"])
        perf["outputs_per_s"] = rounded(rate, 6)
        perf["throughput_source"] = "measured"
        perf["measured"] = measured
        extras, source = _measured_rates(measured)
    perf["has_acceptance_data"] = source is not None
    perf["acceptance_source"] = source or "the brief's assumption"
    return perf, extras
