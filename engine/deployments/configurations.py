"""An offer in each configuration it can run in; the cheapest one makes the row.

A configuration is how one replica is deployed: GPUs per replica, tensor / pipeline /
expert parallelism, precision and serving engine. An offer's configurations are:

- every configuration measured on that offer, or on its accelerator (a benchmark result's
  GPU count, parallelism, precision and engine);
- the smallest configuration whose memory fits, as an estimate;
- the next power of two above it where memory fits, as an estimate.

Each is assessed as a whole row would be (``assess``: eligibility, point estimate, fleet,
capacity), each at its own evidence — a measurement counts at the configuration it was
measured in and is never scaled to another. The row keeps the eligible configuration with
the strongest evidence (measured, then proxy, then estimated), the cheapest by unit cost
among those (ties: the order given): a roofline estimate is optimistic, so an estimated
configuration that looks cheaper never displaces a measured one that meets the brief; it
is listed as an alternative, to benchmark. When none is eligible the row keeps the first
measured one, else the first given, so it is judged on its strongest evidence. The others
are listed on the row as alternatives with their figures.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal

from engine.deployments.assess import Assessment, assess
from engine.evidence import evidence_strength
from engine.recommendation import latency_verdict
from engine.types import CandidateInput, JsonMixin, WorkloadInput

ORIGIN_WORDS = {
    "measured_offer": "measured on this offer",
    "measured_accelerator": "measured on this accelerator",
    "memory_minimum": "smallest memory fit (estimated)",
    "power_of_two": "next power of two (estimated)",
}


@dataclass(frozen=True, slots=True)
class Configuration(JsonMixin):
    """How one replica is deployed."""

    gpus_per_replica: int
    tensor_parallel: int
    pipeline_parallel: int = 1
    expert_parallel: int | None = None  # None: not stated
    precision: str = ""
    serving_engine: str = ""  # "" : not stated
    origin: str = "memory_minimum"  # a key of ORIGIN_WORDS
    result_id: int | str | None = None  # the benchmark result it was measured in

    @property
    def measured(self) -> bool:
        return self.origin.startswith("measured")

    def words(self) -> str:
        """'8 GPUs (TP=8, PP=1), bf16, vllm'."""
        gpus = self.gpus_per_replica
        shape = f"TP={self.tensor_parallel}, PP={self.pipeline_parallel}"
        if self.expert_parallel:
            shape += f", EP={self.expert_parallel}"
        parts = [f"{gpus} GPU{'' if gpus == 1 else 's'} ({shape})"]
        parts += [p for p in (self.precision, self.serving_engine) if p]
        return ", ".join(parts)


@dataclass(frozen=True, slots=True)
class ConfigurationVerdict(JsonMixin):
    """One configuration of an offer, as costed."""

    configuration: Configuration
    words: str
    origin_words: str
    chosen: bool
    eligible: bool
    reasons: tuple[str, ...]
    unit_cost: Decimal | None
    total: Decimal | None
    perf_source: str
    latency_source: str | None
    latency_verdict: str
    gpus_peak: int | None
    nodes_peak: int | None


def _pick(
    options: Sequence[tuple[Configuration, CandidateInput]], found: Sequence[Assessment]
) -> int:
    eligible = [i for i, a in enumerate(found) if a.eligible]
    if eligible:

        def key(i: int) -> tuple[int, Decimal, int]:
            estimate = found[i].estimate
            assert estimate is not None  # noqa: S101 - eligible rows are costed
            source = evidence_strength(options[i][1].perf_source)
            return (source, estimate.unit_cost_exact, i)

        return min(eligible, key=key)
    return next((i for i, (conf, _) in enumerate(options) if conf.measured), 0)


def choose_configuration(
    workload: WorkloadInput,
    options: Sequence[tuple[Configuration, CandidateInput]],
) -> tuple[int, tuple[ConfigurationVerdict, ...]]:
    """(index of the configuration the row takes, every configuration's verdict)."""
    if not options:
        raise ValueError("an offer needs at least one configuration")
    found = [assess(workload, c) for _, c in options]
    chosen = _pick(options, found)
    verdicts = []
    for i, ((conf, cand), a) in enumerate(zip(options, found, strict=True)):
        verdicts.append(
            ConfigurationVerdict(
                configuration=conf,
                words=conf.words(),
                origin_words=ORIGIN_WORDS.get(conf.origin, conf.origin),
                chosen=i == chosen,
                eligible=a.eligible,
                reasons=a.reasons,
                unit_cost=a.estimate.unit_cost if a.estimate else None,
                total=a.estimate.total if a.estimate else None,
                perf_source=cand.perf_source,
                latency_source=cand.latency_source,
                latency_verdict=latency_verdict(workload, cand),
                gpus_peak=a.fleet.gpus_peak if a.fleet else None,
                nodes_peak=a.fleet.nodes_peak if a.fleet else None,
            )
        )
    return chosen, tuple(verdicts)
