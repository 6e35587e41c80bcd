"""A brief's volume in units nobody misreads: what it derives to, before anyone saves it.

The brief states accepted outputs per month in its class's own unit (answers for the serving
classes, images or clips for media, fine-tuned models for adapter fine-tuning) and, apart,
the output tokens per request. From those::

    output tokens / month  = accepted outputs × output tokens per request
    requests / s (average) = accepted outputs ÷ acceptance ÷ (730 h × 3600 s)
    requests / s (peak)    = average × peak-to-average
    output tokens / s peak = peak requests / s × output tokens per request

The implied fleets (``fleets_by_accelerator``) are roofline estimates on each catalog
accelerator the brief fits: enough to tell 12 GPUs from 920 before anything is saved. The
brief's likely fleet is the median of those within ``CONSIDERED_WITHIN`` × the smallest
(``likely_fleet``), never the most favourable part. Pure: no Django. A brief whose likely
fleet passes ``settings.BRIEF_CONFIRM_ABOVE_GPUS`` GPUs at peak, or more than
``CONFIRM_ABOVE_REPLICAS`` replicas of its model (``volume_verdict``), is saved only once its
author confirms the volume (briefs/services.py); the brief form says so while typing.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from core import workloads
from core.values import finite_or_none
from engine.errors import EngineInputError
from engine.memory.fit import memory_fit
from engine.memory.spec import FitInput, GpuSpec, ModelSpec
from engine.performance import InferencePerfInput, estimate_inference

SECONDS_PER_MONTH = 730 * 3600
# A volume needing more replicas of the model than this at peak asks for a confirmation
# whatever the fleet's size: a small model's unit slip stays under any GPU count (P17).
CONFIRM_ABOVE_REPLICAS = 32
# The accelerators a brief's buyer would consider: those whose peak fleet is within this
# factor of the smallest (an H100 at 2.4× a B200 is; a T4 at 29× is not).
CONSIDERED_WITHIN = 4

UNIT_WORDS: dict[str, tuple[str, str]] = {
    **dict.fromkeys(workloads.SERVING, ("answer", "answers (accepted requests), not tokens")),
    **dict.fromkeys(workloads.MEDIA, ("image or clip", "images or clips")),
    **dict.fromkeys(workloads.ADAPTER, ("fine-tuned model", "fine-tuned models")),
    **dict.fromkeys(workloads.TRAINING_RUN, ("run", "completed runs")),
}


def unit_words(workload_class: str) -> str:
    """'answers (accepted requests), not tokens' for a serving class, and so on."""
    return UNIT_WORDS.get(workload_class, ("output", "accepted outputs"))[1]


def _number(value: Any) -> float | None:
    number = finite_or_none(value)
    return number if number is not None and number > 0 else None


@dataclass(frozen=True, slots=True)
class VolumeEcho:
    accepted_per_month: float
    unit: str
    output_tokens_per_request: float | None
    tokens_per_month: float | None
    average_rps: float
    peak_rps: float
    peak_output_tokens_per_s: float | None

    def words(self) -> str:
        """'300,000,000 answers … a month × 300 output tokens ≈ 90 B output tokens a month;
        ≈ 114 requests/s on average, 228 at peak'."""
        head = f"{self.accepted_per_month:,.0f} {self.unit} a month"
        if self.tokens_per_month is not None and self.output_tokens_per_request is not None:
            head += (
                f" × {self.output_tokens_per_request:,.0f} output tokens ≈ "
                f"{short(self.tokens_per_month)} output tokens a month"
            )
        return (
            f"{head}; ≈ {self.average_rps:,.1f} requests/s on average, {self.peak_rps:,.1f} at peak"
        )


def short(value: float) -> str:
    """90e9 → '90 B', 1.2e6 → '1.2 M'."""
    for size, suffix in ((1e12, "T"), (1e9, "B"), (1e6, "M"), (1e3, "k")):
        if value >= size:
            return f"{value / size:,.3g} {suffix}"
    return f"{value:,.0f}"


def volume_echo(values: Mapping[str, Any]) -> VolumeEcho | None:
    """The derived volume of a brief's values (a form's cleaned data or a brief's fields);
    None when the class has no monthly volume or the volume is not stated."""
    cls = str(values.get("workload_class") or "")
    accepted = _number(values.get("monthly_accepted_outputs_likely"))
    if accepted is None or workloads.is_training_run(cls) or workloads.is_training(cls):
        return None
    acceptance = _number(values.get("acceptance_rate_likely")) or 1.0
    peak = _number(values.get("peak_to_average")) or 1.0
    average = accepted / min(1.0, acceptance) / SECONDS_PER_MONTH
    tokens = _number(values.get("mean_output_tokens")) if workloads.is_serving(cls) else None
    return VolumeEcho(
        accepted_per_month=accepted,
        unit=unit_words(cls),
        output_tokens_per_request=tokens,
        tokens_per_month=accepted * tokens if tokens else None,
        average_rps=average,
        peak_rps=average * peak,
        peak_output_tokens_per_s=average * peak * tokens if tokens else None,
    )


@dataclass(frozen=True, slots=True)
class ImpliedFleet:
    gpus_peak: int
    accelerator_name: str
    gpus_per_replica: int
    replicas: int = 1

    def words(self) -> str:
        return (
            f"about {self.gpus_peak:,} {self.accelerator_name} GPUs at peak "
            f"({self.gpus_per_replica} per replica; a roofline estimate, before any quote)"
        )


def fleets_by_accelerator(
    values: Mapping[str, Any],
    echo: VolumeEcho | None,
    model: ModelSpec | None,
    gpus: Iterable[tuple[str, GpuSpec]],
) -> list[ImpliedFleet]:
    """The peak fleet by the roofline on each of ``gpus`` (name, spec) the brief fits, fewest
    GPUs first; empty when the brief cannot say."""
    if echo is None or model is None or echo.peak_output_tokens_per_s is None:
        return []
    p95_in = int(_number(values.get("p95_input_tokens")) or 1)
    p95_out = int(_number(values.get("p95_output_tokens")) or 1)
    concurrency = int(_number(values.get("concurrency")) or 1)
    weights = str(values.get("weight_precision") or "bf16")
    kv = str(values.get("kv_precision") or weights)
    fleets = []
    for name, gpu in gpus:
        try:
            fit = memory_fit(
                FitInput(
                    model=model,
                    gpu=gpu,
                    mode="inference",
                    weight_precision=weights,
                    kv_precision=kv,
                    context_tokens=p95_in + p95_out,
                    concurrent_sequences=concurrency,
                )
            )
            if not fit.fits:
                continue
            per = fit.gpus_required
            est = estimate_inference(
                InferencePerfInput(
                    model=model,
                    gpu=gpu,
                    weight_precision=weights,
                    kv_precision=kv,
                    input_tokens=p95_in,
                    output_tokens=p95_out,
                    concurrency=concurrency,
                    gpus=per,
                )
            )
        except (EngineInputError, ValueError):
            continue
        if not est.output_tokens_per_s:
            continue
        replicas = max(1, math.ceil(echo.peak_output_tokens_per_s / est.output_tokens_per_s))
        fleets.append(ImpliedFleet(replicas * per, name, per, replicas))
    return sorted(fleets, key=lambda f: (f.gpus_peak, f.accelerator_name))


def considered_fleets(fleets: list[ImpliedFleet]) -> list[ImpliedFleet]:
    """The fleets (fewest GPUs first) within ``CONSIDERED_WITHIN`` times the smallest: the
    accelerators an RFQ for the brief asks for."""
    if not fleets:
        return []
    return [f for f in fleets if f.gpus_peak <= CONSIDERED_WITHIN * fleets[0].gpus_peak]


def likely_fleet(fleets: list[ImpliedFleet]) -> ImpliedFleet | None:
    """The brief's likely fleet: the median of the considered accelerators (the upper one of
    an even count), not the most favourable, which a fast new part makes look small (P17)."""
    considered = considered_fleets(fleets)
    return considered[len(considered) // 2] if considered else None


def fleets_words(fleets: list[ImpliedFleet]) -> str:
    """'likely about 32 H100 SXM 80GB GPUs at peak (…); from 4 on B200 to 64 on L40S across
    the 9 accelerators it fits'."""
    likely = likely_fleet(fleets)
    if likely is None:
        return ""
    text = f"likely {likely.words()}"
    if len(fleets) > 1:
        low, high = fleets[0], fleets[-1]
        text += (
            f"; from {low.gpus_peak:,} on {low.accelerator_name} to {high.gpus_peak:,} on "
            f"{high.accelerator_name} across the {len(fleets)} accelerators it fits"
        )
    return text


@dataclass(frozen=True, slots=True)
class VolumeVerdict:
    """Whether a volume needs its author's confirmation, and why, in words."""

    ask: bool
    reasons: list[str]


def volume_verdict(
    echo: VolumeEcho | None,
    fleets: list[ImpliedFleet],
    *,
    above_gpus: int,
    above_replicas: int = CONFIRM_ABOVE_REPLICAS,
) -> VolumeVerdict:
    """Ask when the likely fleet is large in absolute terms (above ``above_gpus`` at peak), or
    relative to the model: more than ``above_replicas`` replicas of it at peak, which a small
    model reaches by a unit slip (tokens typed as answers) while its GPU count stays low."""
    likely = likely_fleet(fleets)
    if echo is None or likely is None:
        return VolumeVerdict(False, [])
    reasons = []
    if likely.gpus_peak > above_gpus:
        reasons.append(f"{likely.words()}, above {above_gpus:,} GPUs")
    if likely.replicas > above_replicas:
        reasons.append(
            f"{likely.replicas:,} replicas of the model at peak ({likely.gpus_per_replica} "
            f"{likely.accelerator_name} each), above {above_replicas:,}"
        )
    return VolumeVerdict(bool(reasons), reasons)
