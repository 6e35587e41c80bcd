"""GenAI-Perf and AIPerf input configs read for the model and the precision (finding X11).

The files are written here in the real layouts (FORMATS.md §2.1, §3.1): GenAI-Perf's
config-file layout (`model_names`, `endpoint`, `perf_analyzer.stimulus`, `input.extra`) and
its older flat layout (`model` list, `extra_inputs`), AIPerf's early export (`records`,
`endpoint.model_names`, `cli_command`) and schema 1.3 (`models.items`). Figures are made up.
"""

from __future__ import annotations

import json
from typing import Any

from benchmarks.parsers import parse
from benchmarks.parsers._input_config import model_names, precision_statements


def genai_perf(config: dict[str, Any]) -> bytes:
    """A GenAI-Perf `*_genai_perf.json` of one streaming run, at 40 requests."""
    stat = {"unit": "ms", "avg": 120.0, "p50": 110.0, "p95": 180.0, "p99": 210.0}
    obj = {
        "time_to_first_token": stat,
        "inter_token_latency": {**stat, "avg": 12.0, "p50": 11.0, "p95": 15.0, "p99": 18.0},
        "request_latency": {**stat, "avg": 1500.0, "p50": 1400.0, "p95": 1900.0, "p99": 2100.0},
        "output_token_throughput": {"unit": "tokens/sec", "avg": 812.5},
        "request_throughput": {"unit": "requests/sec", "avg": 3.25},
        "request_count": {"unit": "count", "avg": 40},
        "input_config": config,
    }
    return json.dumps(obj, indent=2).encode()


def aiperf_early(config: dict[str, Any]) -> bytes:
    """An AIPerf v0.1 `profile_export_aiperf.json` (the `records` layout)."""

    def rec(tag: str, unit: str, avg: float, **pct: float) -> dict[str, Any]:
        return {"tag": tag, "unit": unit, "header": tag, "avg": avg, **pct}

    records = {
        "ttft": rec("ttft", "ms", 150.0, p50=140.0, p95=220.0, p99=260.0),
        "request_latency": rec("request_latency", "ms", 2600.0, p50=2500.0, p99=3100.0),
        "request_throughput": rec("request_throughput", "requests/sec", 8.9),
        "output_token_throughput": rec("output_token_throughput", "tokens/sec", 2230.0),
        "request_count": rec("request_count", "requests", 89),
        "error_request_count": rec("error_request_count", "requests", 11),
    }
    return json.dumps({"records": records, "input_config": config}).encode()


def aiperf_schema_13(config: dict[str, Any]) -> bytes:
    """An AIPerf 0.10 (schema 1.3) `profile_export_aiperf.json`."""
    obj = {
        "schema_version": "1.3",
        "aiperf_version": "0.10.0",
        "request_latency": {"unit": "ms", "avg": 900.0, "p50": 880.0, "p99": 1300.0},
        "request_throughput": {"unit": "requests/sec", "avg": 4.0},
        "output_token_throughput": {"unit": "tokens/sec", "avg": 640.0},
        "request_count": {"unit": "requests", "avg": 40},
        "input_config": config,
    }
    return json.dumps(obj).encode()


def test_x11_genai_perf_config_layout_model_and_its_fp8_suffix() -> None:
    """X11: GenAI-Perf's `model_names` names the model; its `-FP8` suffix is what the upload
    reads as the precision (one name: nothing else is recorded)."""
    config = {
        "model_names": ["RedHatAI/Meta-Llama-3.1-8B-Instruct-FP8"],
        "endpoint": {"type": "chat", "streaming": True},
        "perf_analyzer": {"stimulus": {"concurrency": 8}},
        "tokenizer": {"name": "meta-llama/Llama-3.1-8B-Instruct"},
    }
    parsed = parse(genai_perf(config))
    assert parsed.format_id == "genai-perf-json"
    assert parsed.model == "RedHatAI/Meta-Llama-3.1-8B-Instruct-FP8"
    assert "config_model_names" not in parsed.extra
    assert parsed.metrics.concurrency == 8


def test_x11_genai_perf_extra_inputs_state_the_quantization() -> None:
    """X11: a `quantization` key among the config's extra inputs (`input.extra`) is kept as
    `config_quantization`, with where it was read."""
    config = {
        "model_names": ["llama-70b"],
        "input": {"extra": {"max_tokens": 256, "quantization": "awq"}},
    }
    parsed = parse(genai_perf(config))
    assert parsed.extra["config_quantization"] == "awq"
    assert parsed.extra["config_precision_source"] == "input_config.input.extra.quantization"


def test_x11_genai_perf_flat_layout_extra_inputs_as_name_value_strings() -> None:
    """X11: the older flat config (`model` list, `extra_inputs` as `name:value` strings)."""
    config = {
        "model": ["mistral-7b"],
        "concurrency": 4,
        "extra_inputs": ["max_tokens:128", "dtype:bfloat16"],
    }
    parsed = parse(genai_perf(config))
    assert parsed.model == "mistral-7b"
    assert parsed.extra["config_dtype"] == "bfloat16"
    assert parsed.extra["config_precision_source"] == "input_config.extra_inputs[1]"


def test_x11_aiperf_early_layout_reads_every_listed_model() -> None:
    """X11: `--model-names a,b` is two models: both kept, a note says the requests were
    spread over them, the result is named after the first."""
    config = {
        "endpoint": {"model_names": ["Qwen/Qwen2.5-7B-Instruct-AWQ,Qwen/Qwen2.5-7B-Instruct"]},
        "loadgen": {"concurrency": 100},
    }
    parsed = parse(aiperf_early(config))
    assert parsed.format_id == "aiperf-json"
    assert parsed.model == "Qwen/Qwen2.5-7B-Instruct-AWQ"
    assert parsed.extra["config_model_names"] == (
        "Qwen/Qwen2.5-7B-Instruct-AWQ, Qwen/Qwen2.5-7B-Instruct"
    )
    assert any("names 2 models" in note for note in parsed.notes)


def test_x11_aiperf_model_from_the_recorded_command_line() -> None:
    """X11: a config whose only model statement is its `cli_command` (`-m "…"`)."""
    config = {
        "loadgen": {"concurrency": 16},
        "cli_command": 'aiperf profile -m "nvidia/Llama-3.3-70B-Instruct-NVFP4" --url '
        '"localhost:9000" --streaming --concurrency 16',
    }
    parsed = parse(aiperf_early(config))
    assert parsed.model == "nvidia/Llama-3.3-70B-Instruct-NVFP4"


def test_x11_aiperf_schema_13_models_items_and_dtype_pairs() -> None:
    """X11: schema 1.3 names models in `models.items`; an extra input written as a
    `[name, value]` pair states the dtype."""
    config = {
        "models": {"items": [{"name": "openai/gpt-oss-20b"}]},
        "input": {"extra": [["dtype", "auto"]]},
    }
    parsed = parse(aiperf_schema_13(config))
    assert parsed.model == "openai/gpt-oss-20b"
    assert parsed.extra["config_dtype"] == "auto"


def test_x11_config_reader_is_bounded_and_ignores_non_words() -> None:
    """X11: booleans, nested containers and unbalanced command lines state nothing."""
    config = {
        "precision": True,
        "a": {"b": {"dtype": ["fp8"]}},
        "cli_command": "aiperf profile -m 'unterminated",
    }
    assert list(precision_statements(config)) == []
    assert model_names(config) == []
    deep: dict[str, Any] = {"dtype": "fp8"}
    for _ in range(20):
        deep = {"x": deep}
    assert list(precision_statements(deep)) == []
