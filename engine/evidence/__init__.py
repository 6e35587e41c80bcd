"""Matching rules: does a benchmark result count as evidence for one candidate of one brief?

Pure: dataclasses in, a verdict out (docs/engine/evidence.md). A result is

- **measured** for a candidate only when it was measured on the candidate's accelerator, on
  the brief's model (same model profile, or the same name once the organisation prefix and
  the "-Instruct"/"-chat" suffixes are dropped) at the brief's precision, at the candidate's
  GPU count, with input and output lengths within ``LENGTH_TOLERANCE`` (±25 %) of the
  brief's and a concurrency (or the highest measured concurrency of its sweep) at least the
  brief's;
- **proxy** when it is the same model on another shape or setup (lengths, concurrency,
  precision, KV-cache precision, GPU count, tensor/pipeline layout, serving engine or its
  major version), or a model of the same family **and version** and size class (active
  parameter counts within ``SIZE_CLASS_RATIO``, from the model profile when the brief has
  one); the adjustment applied is stated and the spread widens. A result at another weight
  precision is scaled by the ratio of weight bytes (memory-bound decode reads every weight
  once per token: an FP8 result for a BF16 brief × 0.5); one of another serving engine,
  engine major version or KV-cache precision keeps its throughput (no public factor carries
  one to the other) and says so;
- a mixture-of-experts result never stands for a dense brief, nor the reverse;
- **published** when it is a public, VALID result of the same model (or the same family and size
  class) on the same accelerator in the brief's regime (`match_published`): ranked below the
  team's own measurement and above the estimate;
- a measurement on one node never stands for a row whose GPUs span several (tensor parallel
  across instances is not the measured setup); a file's nodes are read as full nodes of
  ``NODE_GPUS_ASSUMED`` GPUs;
- **ignored** otherwise, with the reason in words ("benchmark of Llama 3.1 8B ignored: the
  brief is Llama 3.1 70B").

Scaling is never silent: a result measured on N GPUs costed on M ≠ N GPUs is scaled linearly
per GPU (M / N) and says so, and its low spread factor drops by ``SCALING_WIDENING`` per
doubling (tensor-parallel efficiency was not measured). A proxy of another size scales
throughput by the ratio of active parameters (decode reads every active weight once per
token) and says so.
"""

from engine.evidence.kinds import (
    EVIDENCE_KINDS,
    SIZE_CLASS_RATIO,
    EvidenceMatch,
    EvidenceTarget,
    Published,
    ResultWorkload,
    evidence_strength,
    workload_of,
)
from engine.evidence.match import (
    choose_evidence,
    match_result,
    rank_evidence,
    round_order,
)
from engine.evidence.names import (
    family_of,
    normalise_model,
    params_from_name,
    same_model_name,
)

__all__ = [
    "EVIDENCE_KINDS",
    "SIZE_CLASS_RATIO",
    "EvidenceMatch",
    "EvidenceTarget",
    "Published",
    "ResultWorkload",
    "choose_evidence",
    "evidence_strength",
    "family_of",
    "match_result",
    "normalise_model",
    "params_from_name",
    "rank_evidence",
    "round_order",
    "same_model_name",
    "workload_of",
]
