"""Services (writes) of the benchmarks area, re-exported: uploads, parsing, plans."""

from benchmarks.services.asked import benchmark_result_model_set
from benchmarks.services.batches import (
    MAX_FILES_PER_UPLOAD,
    FileOutcome,
    benchmark_results_ingest_many,
    benchmark_upload_check,
)
from benchmarks.services.plans import (
    benchmark_candidates_compared,
    benchmark_plan_create,
    benchmark_plan_refresh,
    benchmark_plan_step_check,
    benchmark_plans_refresh_for_brief,
)
from benchmarks.services.results import (
    benchmark_result_parse,
    benchmark_results_redrive_stuck,
)
from benchmarks.services.uploads import (
    UploadMeta,
    benchmark_result_ingest,
    benchmark_upload_too_large,
)

__all__ = [
    "MAX_FILES_PER_UPLOAD",
    "FileOutcome",
    "UploadMeta",
    "benchmark_candidates_compared",
    "benchmark_plan_create",
    "benchmark_plan_refresh",
    "benchmark_plan_step_check",
    "benchmark_plans_refresh_for_brief",
    "benchmark_result_ingest",
    "benchmark_result_model_set",
    "benchmark_result_parse",
    "benchmark_results_ingest_many",
    "benchmark_results_redrive_stuck",
    "benchmark_upload_check",
    "benchmark_upload_too_large",
]
