"""Request-size buckets of the mixed plan: from the brief, or from the per-request samples of
the uploads made for it (Mélange's idea: short requests run well on cheaper GPUs, long ones
need larger ones).

A bucket has a share of the requests and a mean size (prompt + output tokens). A replica's
time per request is taken proportional to the tokens it processes, so a configuration that
delivers ``rate`` accepted outputs per replica-hour at the brief's mean request runs bucket b
at ``rate × T / t_b``, where T is the share-weighted mean of the buckets' sizes: a row
carrying every bucket costs what it costs at the mean, however the requests split. Long
requests may reach the brief's whole context window: only rows that fit it serve the long
bucket (``mixed_adapter.fits_long_requests``); a row that fits only the p95 context, eligible
with a warning on its own, carries short requests in the plan.

- **From the brief** (``brief_sizes``): the long bucket is the top ``long_share`` of the
  requests at the p95 prompt, the short one the rest of the mean,
  ``short = (mean − long_share × p95) / (1 − long_share)``.
- **From the samples** (``sample_sizes``): each measured request (prompt, output tokens) falls
  in the long bucket when its prompt is at least the brief's p95 prompt, else in the short
  one; a bucket's share is its count over all requests, its size the mean of its requests
  (the brief's output length where a request's output is not recorded). The samples give the
  shape of the traffic; its volume and mean stay the brief's (the rows are costed there).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from engine.errors import EngineInputError
from engine.plan.mixed_types import PlanBucket
from engine.types import WorkloadInput

SHORT, LONG = "short", "long"


@dataclass(frozen=True, slots=True)
class BucketSize:
    """A request-size bucket: its share of the requests and its mean request."""

    name: str
    share: float
    input_tokens: float
    output_tokens: float

    @property
    def tokens(self) -> float:
        return self.input_tokens + self.output_tokens

    def bucket(self) -> PlanBucket:
        return PlanBucket(self.name, self.share)

    def to_dict(self) -> dict[str, object]:
        return {
            "name": self.name,
            "share": self.share,
            "input_tokens": round(self.input_tokens, 1),
            "output_tokens": round(self.output_tokens, 1),
        }


def brief_sizes(
    workload: WorkloadInput, *, long_share: float, p95_input_tokens: float
) -> tuple[BucketSize, BucketSize]:
    """Short and long requests from the brief's mean and p95 prompt (module docstring)."""
    if not 0 < long_share < 1:
        raise EngineInputError("long_share", "must be between 0 and 1")
    mean_in = workload.input_tokens_per_request
    short_in = (mean_in - long_share * p95_input_tokens) / (1 - long_share)
    if short_in < 0 or p95_input_tokens < mean_in:
        raise EngineInputError("p95_input_tokens", "must be at least the mean prompt length")
    out = workload.output_tokens_per_request
    return (
        BucketSize(SHORT, 1 - long_share, short_in, out),
        BucketSize(LONG, long_share, p95_input_tokens, out),
    )


def _finite(value: object) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    number = float(value)
    return number if math.isfinite(number) and number >= 0 else None


def sample_sizes(
    requests: Iterable[tuple[object, object]],
    *,
    threshold_input_tokens: float,
    default_output_tokens: float,
) -> tuple[BucketSize, ...]:
    """Buckets from measured (prompt, output) token pairs: long when the prompt is at least
    ``threshold_input_tokens``. A pair without a prompt length is left out; an empty bucket
    is not made. Raises EngineInputError when no request has a prompt length."""
    groups: dict[str, list[tuple[float, float]]] = {SHORT: [], LONG: []}
    for prompt, output in requests:
        tokens_in = _finite(prompt)
        if tokens_in is None:
            continue
        tokens_out = _finite(output)
        name = LONG if tokens_in >= threshold_input_tokens else SHORT
        groups[name].append(
            (tokens_in, default_output_tokens if tokens_out is None else tokens_out)
        )
    total = sum(len(found) for found in groups.values())
    if total == 0:
        raise EngineInputError("request_sizes", "no measured request states its prompt length")
    return tuple(
        BucketSize(
            name,
            len(found) / total,
            sum(p for p, _ in found) / len(found),
            sum(o for _, o in found) / len(found),
        )
        for name, found in groups.items()
        if found
    )


def mean_tokens(sizes: Sequence[BucketSize]) -> float:
    """The share-weighted mean request size of the buckets (prompt + output tokens)."""
    return sum(size.share * size.tokens for size in sizes)
