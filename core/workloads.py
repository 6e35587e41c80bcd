"""The workload taxonomy: the one definition of the workload classes, their groups and labels.

Pure Python (no Django). The brief model's choices, the brief rules and forms, the benchmark
plan rules, the snapshot adapter and the engine all use these values, spelled one way.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Literal, get_args


class WorkloadClass(StrEnum):
    TRAINING = "training"
    FULL_FINETUNE = "full_finetune"
    ADAPTER_FINETUNE = "adapter_finetune"
    BATCH_INFERENCE = "batch_inference"
    REALTIME_INFERENCE = "realtime_inference"
    RETRIEVAL = "retrieval"
    MEDIA = "media"
    EVALUATION = "evaluation"


#: The same values as a type, for the engine's annotations (a test keeps the two equal).
WorkloadClassName = Literal[
    "training",
    "full_finetune",
    "adapter_finetune",
    "batch_inference",
    "realtime_inference",
    "retrieval",
    "media",
    "evaluation",
]

LABELS: dict[str, str] = {
    WorkloadClass.TRAINING: "Pre-training / training",
    WorkloadClass.FULL_FINETUNE: "Full fine-tuning",
    WorkloadClass.ADAPTER_FINETUNE: "Adapter fine-tuning (LoRA / QLoRA)",
    WorkloadClass.BATCH_INFERENCE: "Batch inference",
    WorkloadClass.REALTIME_INFERENCE: "Real-time inference",
    WorkloadClass.RETRIEVAL: "Retrieval pipeline",
    WorkloadClass.MEDIA: "Media generation",
    WorkloadClass.EVALUATION: "Evaluation",
}

ALL: frozenset[str] = frozenset(WorkloadClass)
#: Serving requests: priced per accepted output from throughput, latency targets apply.
SERVING: frozenset[str] = frozenset(
    {
        WorkloadClass.BATCH_INFERENCE,
        WorkloadClass.REALTIME_INFERENCE,
        WorkloadClass.RETRIEVAL,
        WorkloadClass.EVALUATION,
    }
)
#: Serving with a person waiting: latency targets decide which outputs count (goodput).
REALTIME: frozenset[str] = frozenset({WorkloadClass.REALTIME_INFERENCE, WorkloadClass.RETRIEVAL})
#: A run that trains every weight of the model (GPU-hours from FLOPs and MFU).
TRAINING_RUN: frozenset[str] = frozenset({WorkloadClass.TRAINING, WorkloadClass.FULL_FINETUNE})
#: Fine-tuning of adapters only (LoRA / QLoRA): far fewer trainable weights.
ADAPTER: frozenset[str] = frozenset({WorkloadClass.ADAPTER_FINETUNE})
#: Every class that trains, whole model or adapters.
TRAINING: frozenset[str] = TRAINING_RUN | ADAPTER
#: Runs whose output is a fine-tuned model (costed per accepted fine-tuned model).
FINE_TUNING: frozenset[str] = frozenset(
    {WorkloadClass.FULL_FINETUNE, WorkloadClass.ADAPTER_FINETUNE}
)
MEDIA: frozenset[str] = frozenset({WorkloadClass.MEDIA})

assert frozenset(get_args(WorkloadClassName)) == ALL  # noqa: S101 - the two spellings agree
assert SERVING | TRAINING | MEDIA == ALL  # noqa: S101 - every class is in one group


def is_serving(workload_class: str) -> bool:
    return workload_class in SERVING


def is_training(workload_class: str) -> bool:
    """Training of any kind (whole model or adapters)."""
    return workload_class in TRAINING


def is_training_run(workload_class: str) -> bool:
    return workload_class in TRAINING_RUN


def label(workload_class: str) -> str:
    return LABELS.get(workload_class, workload_class)
