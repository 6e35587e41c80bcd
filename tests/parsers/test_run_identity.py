"""Issue 37: a run's identity is everything it measured (F5, F6, F9; docs/benchmarks.md).

Small files in the real formats (SGLang ``bench_serving`` JSON Lines, GuideLLM
benchmarks.json, MLPerf Inference summary.csv), with made-up figures computed by hand.
"""

from __future__ import annotations

import csv
import io
import json
import math
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from benchmarks.parsers import parse
from benchmarks.parsers.identity import run_key, stated_workload

from .test_parser_synthetic import guidellm_bench, guidellm_dist, sglang_line


def _jsonl(lines: list[dict[str, Any]]) -> bytes:
    return "\n".join(json.dumps(line) for line in lines).encode()


def _line(rate: float, dataset: str, out_tok_s: float, **extra: Any) -> dict[str, Any]:
    return sglang_line(
        rate,
        dataset_name=dataset,
        output_throughput=out_tok_s,
        request_throughput=out_tok_s / 128,
        max_concurrency=None,
        **extra,
    )


def _online_file() -> bytes:
    """The 70B online file's shape: random at rates 1, 2, 4, 8, 16, then sharegpt at 4 and 8."""
    lines = [_line(r, "random", 500.0 * r) for r in (1.0, 2.0, 4.0, 8.0, 16.0)]
    lines += [
        _line(4.0, "sharegpt", 746.0, median_ttft_ms=68.0),
        _line(8.0, "sharegpt", 1471.0, median_ttft_ms=17.0),
    ]
    return _jsonl(lines)


def test_f5_sglang_datasets_at_one_rate_are_not_repetitions() -> None:
    result = parse(_online_file(), "online.jsonl")
    assert len(result.runs) == 7
    labels = [p.label for p in result.operating_points]
    assert labels == [f"request rate {r}/s" for r in ("1", "2", "4", "8", "16")]
    assert not any(p.repetitions for p in result.operating_points)
    at4 = result.operating_points[2]
    # the random run's own figures, not (2000 + 746) / 2 = 1373
    assert at4.output_tokens_per_s == 2000.0
    assert at4.ttft_ms is not None
    assert at4.ttft_ms.p50 == 45.0
    assert result.metrics.output_tokens_per_s == 8000.0  # rate 16, random
    [note] = [n for n in result.notes if "other workload" in n or "workloads;" in n]
    assert "sharegpt (runs 6, 7)" in note


def test_f5_f6_offline_workloads_and_true_repetitions() -> None:
    """Seven burst lines of six workloads: only the two 4096/1024 lines are repetitions.

    Neither line states input_throughput or total_throughput (older bench_serving lines), so
    input tokens/s is each run's total over its own duration, then averaged:
    600,000 / 300 = 2,000 and 660,000 / 330 = 2,000, mean 2,000 (summed tokens over the mean
    duration would be 1,260,000 / 315 = 4,000). Output: (1,600 + 1,700) / 2 = 1,650.
    """

    def offline(inp: int, out: int, tok_s: float, **extra: Any) -> dict[str, Any]:
        line = _line(
            math.inf, "random", tok_s, random_input_len=inp, random_output_len=out, **extra
        )
        line.pop("input_throughput")
        line.pop("total_throughput")
        return line

    lines = [
        offline(4096, 1024, 1600.0, total_input_tokens=600000, duration=300.0),
        offline(4096, 1024, 1700.0, total_input_tokens=660000, duration=330.0),
        offline(1024, 1024, 3000.0),
        offline(1024, 512, 2800.0),
        offline(4096, 2048, 1500.0),
        offline(256, 512, 9000.0),
        dict(offline(1024, 1024, 700.0), dataset_name="sharegpt"),
    ]
    text = "\n".join(json.dumps(line) for line in lines).replace("Infinity", "Infinity")
    result = parse(text.encode(), "offline.jsonl")
    [point] = result.operating_points
    assert point.repetitions == 2
    assert point.output_tokens_per_s == 1650.0
    assert point.input_tokens_per_s == 2000.0
    assert result.metrics.output_tokens_per_s == 1650.0
    assert result.metrics.input_tokens_per_s == 2000.0
    [note] = [n for n in result.notes if "workloads;" in n]
    assert "7 runs of 6 workloads" in note
    assert "random 256/512 (run 6)" in note


def test_f6_repetitions_average_stated_input_throughput() -> None:
    """Two repetitions stating input_throughput 5,120 and 4,880: their mean is 5,000."""
    lines = [
        sglang_line(4.0, input_throughput=5120.0, output_throughput=640.0),
        sglang_line(4.0, input_throughput=4880.0, output_throughput=660.0),
    ]
    [point] = parse(_jsonl(lines), "reps.jsonl").operating_points
    assert point.repetitions == 2
    assert point.input_tokens_per_s == 5000.0
    assert point.output_tokens_per_s == 650.0


def test_f9_guidellm_throughput_run_reads_its_measured_concurrency() -> None:
    bench = guidellm_bench(5.035, [70000.0 + i for i in range(20)], False)
    bench["config"] = {"strategy": {"type_": "throughput", "max_concurrency": 512}}
    bench["metrics"]["request_concurrency"] = guidellm_dist([423.39])
    obj = {
        "metadata": {"version": 1, "guidellm_version": "0.5.0"},
        "args": {"target": "http://gpu-node:8000", "model": "Qwen/Qwen2.5-7B-Instruct"},
        "benchmarks": [bench],
    }
    result = parse(json.dumps(obj).encode(), "benchmarks.json")
    assert result.metrics.concurrency == 423.39
    assert result.operating_points[0].concurrency == 423.39
    assert any("measured mean in-flight requests (423.39" in n for n in result.notes)


_MLPERF_HEADER = (
    "Organization,Availability,Division,SystemType,SystemName,Platform,Model,MlperfModel,"
    "Scenario,Result,Accuracy,number_of_nodes,accelerator_model_name,accelerators_per_node,"
    "Units,weight_data_types"
)


def test_f8_mlperf_rows_of_other_systems_are_not_load_levels() -> None:
    """An 8-GPU row and a 72-GPU row of one model are two measurements, not a sweep."""
    head = ["Org", "available", "closed", "datacenter"]
    model = ["gpt-oss-120b", "gpt-oss-120b", "Offline"]
    tail = ["AMD MI355X", "8", "Tokens/s", "fp4"]
    rows = [
        [*head, "8x MI355X", "P8", *model, "121818", "", "1", *tail],
        [*head, "72x MI355X", "P72", *model, "1039900", "", "9", *tail],
    ]
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(_MLPERF_HEADER.split(","))
    writer.writerows(rows)
    result = parse(out.getvalue().encode(), "summary.csv")
    assert result.metrics.output_tokens_per_s == 121818.0
    assert result.metrics.gpus == 8
    assert [p.output_tokens_per_s for p in result.operating_points] == [121818.0]
    assert run_key(result.runs[0]) != run_key(result.runs[1])


# ----------------------------------------------------------------------------- properties

_RATES = st.sampled_from([1.0, 2.0, 4.0, 8.0])
_DATASETS = st.sampled_from(["random", "sharegpt"])
_LENGTHS = st.sampled_from([256, 1024])
_RUN = st.tuples(_RATES, _DATASETS, _LENGTHS, st.integers(100, 5000))


def _points(lines: list[dict[str, Any]]) -> list[dict[str, Any]]:
    result = parse(_jsonl(lines), "sweep.jsonl")
    return sorted(
        (p.to_dict() for p in result.operating_points), key=lambda p: json.dumps(p, sort_keys=True)
    )


def _lines(runs: list[tuple[float, str, int, int]]) -> list[dict[str, Any]]:
    return [
        _line(rate, dataset, float(tok), random_input_len=length)
        for rate, dataset, length, tok in runs
    ]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_RUN, min_size=2, max_size=6), st.randoms(use_true_random=False))
def test_shuffling_a_files_lines_never_changes_its_operating_points(
    runs: list[tuple[float, str, int, int]], rnd: Any
) -> None:
    """Within the first line's workload, the order of lines never changes a point; moving the
    first line only changes which workload the result is (its key is the file's first)."""
    lines = _lines(runs)
    first, rest = lines[0], lines[1:]
    shuffled = list(rest)
    rnd.shuffle(shuffled)
    assert _points([first, *rest]) == _points([first, *shuffled])


@settings(max_examples=40, deadline=None)
@given(_RUN, st.sampled_from(["rate", "dataset", "length", "model", "precision", "gpus"]))
def test_runs_with_any_key_field_different_never_merge(
    run: tuple[float, str, int, int], field: str
) -> None:
    rate, dataset, length, tok = run
    one = _line(rate, dataset, float(tok), random_input_len=length)
    other = dict(one)
    if field == "rate":
        other["request_rate"] = rate * 2
    elif field == "dataset":
        other["dataset_name"] = "sharegpt" if dataset == "random" else "random"
    elif field == "length":
        other["random_input_len"] = length * 2
    elif field == "model":
        other["server_info"] = {"model_path": "Qwen/Qwen3-8B", "version": "0.4.6"}
    elif field == "precision":
        other["server_info"] = dict(one["server_info"], dtype="float8")
    else:
        other["server_info"] = dict(one["server_info"], tp_size=4)
    result = parse(_jsonl([one, other]), "two.jsonl")
    assert not any(p.repetitions for p in result.operating_points)
    assert run_key(result.runs[0]) != run_key(result.runs[1])
    # the same line twice is one measurement: the only way two runs merge
    same = parse(_jsonl([one, dict(one)]), "same.jsonl")
    assert [p.repetitions for p in same.operating_points] == [2]


def test_f7_mlperf_weight_data_types_states_the_precision() -> None:
    """MLPerf's `weight_data_types` column is read, never asked for (mxfp4 is an FP4)."""
    from benchmarks.services.results import stated_precision

    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(_MLPERF_HEADER.split(","))
    head = ["Org", "available", "closed", "datacenter", "8x MI355X", "P8"]
    model = ["llama2-70b-99.9", "llama2-70b-99.9", "Offline", "93000", ""]
    writer.writerow([*head, *model, "1", "AMD MI355X", "8", "Tokens/s", "mxfp4"])
    assert stated_precision(parse(out.getvalue().encode(), "summary.csv")) == "fp4"


def test_f5_uploads_of_two_workloads_never_join_one_sweep() -> None:
    """The same key across uploads: an SGLang random run and a sharegpt run, uploaded as two
    files on one offer at rates 4 and 8, are two entries, not one sweep of two points."""
    from benchmarks.sweep_groups import merge_sweeps

    def item(rid: int, line: dict[str, Any]) -> dict[str, Any]:
        parsed = parse(_jsonl([line]), f"{rid}.jsonl")
        point = parsed.operating_points[0].to_dict()
        return {
            "result_id": rid,
            "quote_id": 3,
            "accelerator": "h200-sxm-141gb",
            "gpu_count": 4,
            "model_name": "Llama 3.3 70B",
            "precision": "bf16",
            "input_tokens_mean": 1024.0,
            "output_tokens_mean": 128.0,
            "operating_points": [point],
            "workload": stated_workload(parsed.extra),
        }

    random4 = item(1, _line(4.0, "random", 2000.0))
    random8 = item(2, _line(8.0, "random", 3500.0))
    sharegpt8 = item(3, _line(8.0, "sharegpt", 1471.0))
    merged = merge_sweeps([random4, random8, sharegpt8])
    assert [m["result_id"] for m in merged] == [1, 3]
    assert merged[0]["sweep_result_ids"] == [1, 2]
