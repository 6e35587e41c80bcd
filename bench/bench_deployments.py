"""Deployments: costing 3 configurations per offer must not multiply the wait.

1,000 offers × 3 configurations (the offer at its GPUs per replica, at twice and at four
times as many, with throughput to match) chosen by the engine (engine/deployments), then the
comparison of the chosen ones at 10,000 samples, against the comparison of 1,000 offers × 1
configuration in the same run. Target: at most 2× the CPU time.
"""

from __future__ import annotations

import os
from dataclasses import replace

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

from bench.common import at_most, best_of, emit, record  # noqa: E402
from bench.synthetic import synthetic_comparison  # noqa: E402
from engine.comparison import run_comparison  # noqa: E402
from engine.deployments import Configuration, choose_configuration  # noqa: E402
from engine.types import CandidateInput, ComparisonInput, Range  # noqa: E402

OFFERS = 1_000
SAMPLES = 10_000
SCALES = (1, 2, 4)


def _configurations(cand: CandidateInput) -> list[tuple[Configuration, CandidateInput]]:
    out = []
    for scale in SCALES:
        gpus = cand.gpus_per_replica * scale
        tp = cand.throughput_per_replica
        throughput = (
            None if tp is None else Range(tp.low * scale, tp.likely * scale, tp.high * scale)
        )
        conf = Configuration(
            gpus_per_replica=gpus,
            tensor_parallel=min(gpus, cand.gpus_per_node),
            origin="memory_minimum" if scale == 1 else "power_of_two",
        )
        out.append((conf, replace(cand, gpus_per_replica=gpus, throughput_per_replica=throughput)))
    return out


def main() -> None:
    inp = synthetic_comparison(OFFERS)
    options = [_configurations(c) for c in inp.candidates]

    def single() -> None:
        run_comparison(inp, seed=7, samples=SAMPLES)

    def three() -> None:
        chosen = []
        for offer in options:
            index, _ = choose_configuration(inp.workload, offer)
            chosen.append(offer[index][1])
        run_comparison(
            ComparisonInput(workload=inp.workload, candidates=tuple(chosen)),
            seed=7,
            samples=SAMPLES,
        )

    one, _ = best_of(single, repeat=3, cpu=True)
    many, _ = best_of(three, repeat=3, cpu=True)
    emit(
        {
            "deployments_1000x1_s": record(one, "s (CPU)", "(baseline)", True),
            "deployments_1000x3_s": record(many, "s (CPU)", "(3 configurations per offer)", True),
            "deployments_3_configurations_ratio": at_most(
                many / one, 2.0, "x", "<= 2x the CPU of 1 configuration per offer"
            ),
        }
    )


if __name__ == "__main__":
    main()
