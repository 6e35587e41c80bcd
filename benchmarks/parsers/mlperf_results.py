"""MLPerf Inference results in the results repositories' own layout.

A pure reader (no Django) of a results tree as MLCommons publishes it::

    <division>/<submitter>/results/<system>/<benchmark>/<scenario>/performance/run_1/mlperf_log_summary.txt
    <division>/<submitter>/systems/<system>.json

It yields one `MLPerfResult` per (round, division, submitter, system, benchmark, scenario) whose
summary says ``Result is : VALID``, and one `MLPerfSkip`, with its reason, for every summary it
could not use (INVALID, no systems JSON, unparseable, a benchmark it does not know). Naming the
accelerator against a catalog is not its job: the systems JSON's name is given as written.

`read_results_tree(root)` reads a folder; `read_results_archive(path)` a ``.zip`` /
``.tar.gz`` / ``.tgz`` without extracting it (members outside the layout are never read, a
member whose path climbs out of the archive is refused, and every member and the total are
size-bounded).
"""

from __future__ import annotations

import json
import re
import tarfile
import zipfile
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Final

from engine.serving_engines import display_name

from .errors import ParseError

SUMMARY_NAME: Final = "mlperf_log_summary.txt"
# A summary is a few KB and a systems JSON one or two; anything larger is not one of them.
MAX_MEMBER_BYTES: Final = 1 << 20
MAX_ARCHIVE_BYTES: Final = 256 << 20
MAX_MEMBERS: Final = 200_000

_SUMMARY_PATH = re.compile(
    r"(?:^|/)(?P<division>closed|open|network)/(?P<submitter>[^/]+)/results/(?P<system>[^/]+)/"
    r"(?P<benchmark>[^/]+)/(?P<scenario>[^/]+)/performance/run_1/mlperf_log_summary\.txt$"
)
_SYSTEM_PATH = re.compile(r"(?:^|/)(?:closed|open|network)/[^/]+/systems/[^/]+\.json$")
_ROUND = re.compile(r"v(\d+\.\d+)")


@dataclass(frozen=True)
class LatencyLimits:
    """What a scenario must hold at the 99th percentile (None: no such limit)."""

    ttft_ms: float | None = None
    tpot_ms: float | None = None
    latency_ms: float | None = None


@dataclass(frozen=True)
class Benchmark:
    """A benchmark this reader knows: the model it runs and how its result is stated."""

    model: str
    accuracy_target: str  # "99" or "99.9" of the FP32 reference accuracy
    result_unit: str  # "tokens/s" or "samples/s": the benchmark's official metric
    limits: Mapping[str, LatencyLimits]


# The MLPerf Inference rules (datacenter, v4.1): LLMs are judged on TTFT and TPOT at p99 in
# Server; GPT-J and SDXL on the whole query's p99 latency. Offline has no latency limit.
_LLM_SERVER = LatencyLimits(ttft_ms=2000.0, tpot_ms=200.0)
_QUERY_20S = LatencyLimits(latency_ms=20000.0)
BENCHMARKS: Final[Mapping[str, Benchmark]] = {
    "llama2-70b-99": Benchmark("llama2-70b", "99", "tokens/s", {"Server": _LLM_SERVER}),
    "llama2-70b-99.9": Benchmark("llama2-70b", "99.9", "tokens/s", {"Server": _LLM_SERVER}),
    "mixtral-8x7b": Benchmark("mixtral-8x7b", "99", "tokens/s", {"Server": _LLM_SERVER}),
    "gptj-99": Benchmark("gptj-6b", "99", "samples/s", {"Server": _QUERY_20S}),
    "gptj-99.9": Benchmark("gptj-6b", "99.9", "samples/s", {"Server": _QUERY_20S}),
    "stable-diffusion-xl": Benchmark("sdxl", "99", "samples/s", {"Server": _QUERY_20S}),
}
SCENARIOS: Final = ("Offline", "Server")


@dataclass(frozen=True)
class Percentiles:
    """Measured latency percentiles, in ms, as the summary prints them (None: not printed)."""

    mean: float | None = None
    p50: float | None = None
    p90: float | None = None
    p95: float | None = None
    p97: float | None = None
    p99: float | None = None
    p999: float | None = None


@dataclass(frozen=True)
class MLPerfResult:
    """One valid result: a whole system's throughput on one benchmark and scenario."""

    round: str  # "v4.1"; "" when neither given nor in the path
    division: str
    submitter: str
    system: str
    benchmark: str  # as in the tree: "llama2-70b-99.9"
    model: str  # what it runs: "llama2-70b"
    accuracy_target: str
    scenario: str
    result_per_s: float  # whole system, in `result_unit`
    result_unit: str
    samples_per_s: float | None
    tokens_per_s: float | None  # output tokens; "(inferred)" ones for GPT-J included
    latency: Percentiles  # whole query
    ttft: Percentiles | None  # LLM Server runs only
    tpot: Percentiles | None
    limits: LatencyLimits
    system_name: str  # the systems JSON's `system_name`
    accelerator_name: str  # as written: "NVIDIA H100-SXM-80GB"
    accelerators_per_node: int
    nodes: int
    accelerator_interconnect: str
    framework: str
    software: str  # `other_software_stack`
    source_path: str  # the summary, relative to the root read

    @property
    def gpus(self) -> int:
        return self.accelerators_per_node * self.nodes

    @property
    def result_per_gpu_s(self) -> float:
        return self.result_per_s / self.gpus


def serving_software(framework: str, stack: object = "") -> str:
    """The serving engine a systems JSON names, from its `framework` and `other_software_stack`
    alike ("vllm", "tensorrt-llm"; "" when neither names one): RedHat's L40S gives "CUDA 12.2"
    as its framework and vLLM 0.5.1 in its stack; NVIDIA's "TensorRT" runs the LLMs on
    TensorRT-LLM. The fit data and the published-results import both read it here."""
    text = f"{framework} {json.dumps(stack) if isinstance(stack, dict) else stack}".lower()
    if "vllm" in text:
        return "vllm"
    if "tensorrt" in text:
        return "tensorrt-llm"
    return ""


def software_label(framework: str, stack: object = "") -> str:
    """The framework as written, led by the serving engine where only the stack names it
    ("vLLM, CUDA 12.2"), so a label and `serving_software` of it both tell the engine."""
    engine = serving_software(framework, stack)
    if not engine or serving_software(framework) == engine:
        return framework
    return ", ".join(p for p in (display_name(engine), framework) if p)


@dataclass(frozen=True)
class MLPerfSkip:
    """A summary that yields no result, and why."""

    source_path: str
    kind: str  # "invalid" | "no-system" | "unparseable" | "unknown-benchmark" | "no-accelerator"
    reason: str


@dataclass(frozen=True)
class MLPerfResults:
    results: tuple[MLPerfResult, ...] = ()
    skipped: tuple[MLPerfSkip, ...] = field(default_factory=tuple)


def read_results_tree(root: str | Path, *, round_id: str | None = None) -> MLPerfResults:
    """Every summary under `root` (a results repository, or any folder holding its layout)."""
    base = Path(root)
    if not base.is_dir():
        raise ParseError(f"{base} is not a folder of MLPerf results.")
    files: dict[str, Path] = {}
    for path in sorted(base.rglob("*")):
        rel = path.relative_to(base).as_posix()
        if path.is_file() and (_SUMMARY_PATH.search(rel) or _SYSTEM_PATH.search(rel)):
            files[rel] = path

    def read(rel: str) -> bytes:
        path = files[rel]
        if path.stat().st_size > MAX_MEMBER_BYTES:
            raise ParseError(f"{rel} is larger than {MAX_MEMBER_BYTES} bytes.")
        return path.read_bytes()

    return _read(
        sorted(files), read, round_id=round_id if round_id is not None else _round_of(str(base))
    )


def read_results_archive(path: str | Path, *, round_id: str | None = None) -> MLPerfResults:
    """The same from a ``.zip`` or ``.tar.gz`` archive, read member by member."""
    contents = dict(_archive_members(Path(path)))
    if (
        round_id is None
    ):  # "inference_results_v4.1.zip", or its top folder "inference_results_v4.1/"
        tops = {rel.split("/", 1)[0] for rel in contents if "/" in rel}
        round_id = _round_of(Path(path).name) or _round_of(" ".join(sorted(tops)))
    return _read(sorted(contents), contents.__getitem__, round_id=round_id)


def _archive_members(path: Path) -> Iterator[tuple[str, bytes]]:
    total = 0
    if zipfile.is_zipfile(path):
        with zipfile.ZipFile(path) as zipped:
            infos = zipped.infolist()
            if len(infos) > MAX_MEMBERS:
                raise ParseError(f"{path.name} has more than {MAX_MEMBERS} members.")
            for info in infos:
                rel = _safe_member_name(info.filename, path.name)
                if info.is_dir() or not _wanted(rel):
                    continue
                total = _bounded(rel, info.file_size, total, path.name)
                with zipped.open(info) as stream:
                    data = stream.read(MAX_MEMBER_BYTES + 1)
                _bounded(rel, len(data), 0, path.name)  # the header's size may lie
                yield rel, data
        return
    try:
        archive = tarfile.open(path, mode="r:*")  # noqa: SIM115 - the `with` below closes it
    except (tarfile.TarError, OSError) as exc:
        raise ParseError(f"{path.name} is neither a .zip nor a .tar(.gz) archive: {exc}") from exc
    with archive:
        count = 0
        for member in archive:  # streamed: one header at a time
            count += 1
            if count > MAX_MEMBERS:
                raise ParseError(f"{path.name} has more than {MAX_MEMBERS} members.")
            rel = _safe_member_name(member.name, path.name)
            if not member.isfile() or not _wanted(rel):
                continue  # links, devices and folders are never followed
            total = _bounded(rel, member.size, total, path.name)
            member_stream = archive.extractfile(member)
            if member_stream is None:
                continue
            yield rel, member_stream.read(MAX_MEMBER_BYTES + 1)


def _safe_member_name(name: str, archive: str) -> str:
    posix = PurePosixPath(name.replace("\\", "/"))
    if posix.is_absolute() or ".." in posix.parts or re.match(r"^[A-Za-z]:", name):
        raise ParseError(f"{archive}: member {name!r} points outside the archive; refused.")
    return posix.as_posix().removeprefix("./")


def _bounded(rel: str, size: int, total: int, archive: str) -> int:
    if size > MAX_MEMBER_BYTES:
        raise ParseError(
            f"{archive}: {rel} is larger than {MAX_MEMBER_BYTES} bytes; not a summary."
        )
    if total + size > MAX_ARCHIVE_BYTES:
        raise ParseError(
            f"{archive}: the summaries and systems files exceed {MAX_ARCHIVE_BYTES} bytes."
        )
    return total + size


def _wanted(rel: str) -> bool:
    return bool(_SUMMARY_PATH.search(rel) or _SYSTEM_PATH.search(rel))


def _round_of(text: str) -> str:
    found = _ROUND.findall(text)
    return f"v{found[-1]}" if found else ""


def _read(paths: Iterable[str], read: Callable[[str], bytes], *, round_id: str) -> MLPerfResults:
    paths = list(paths)
    available = set(paths)
    results: list[MLPerfResult] = []
    skipped: list[MLPerfSkip] = []
    systems: dict[str, dict[str, str] | str] = {}
    for rel in paths:
        match = _SUMMARY_PATH.search(rel)
        if match is None:
            continue
        bench_id = match["benchmark"]
        benchmark = BENCHMARKS.get(bench_id)
        if benchmark is None:
            known = ", ".join(BENCHMARKS)
            skipped.append(
                MLPerfSkip(
                    rel, "unknown-benchmark", f"benchmark {bench_id!r} is not one of {known}."
                )
            )
            continue
        if match["scenario"] not in SCENARIOS:
            skipped.append(
                MLPerfSkip(
                    rel,
                    "unknown-benchmark",
                    f"scenario {match['scenario']!r} is not Offline or Server.",
                )
            )
            continue
        prefix = rel[: match.start("division")]
        system_rel = (
            f"{prefix}{match['division']}/{match['submitter']}/systems/{match['system']}.json"
        )
        if system_rel not in available:
            skipped.append(MLPerfSkip(rel, "no-system", f"no systems description {system_rel}."))
            continue
        if system_rel not in systems:
            systems[system_rel] = _system(system_rel, read)
        system = systems[system_rel]
        if isinstance(system, str):
            skipped.append(MLPerfSkip(rel, "no-system", system))
            continue
        try:
            summary = _summary(read(rel).decode("utf-8", errors="replace"))
        except ParseError as exc:
            skipped.append(MLPerfSkip(rel, "unparseable", exc.message))
            continue
        if summary.invalid_reason:
            skipped.append(MLPerfSkip(rel, "invalid", summary.invalid_reason))
            continue
        made = _result(rel, match, benchmark, summary, system, round_id)
        if isinstance(made, MLPerfSkip):
            skipped.append(made)
        else:
            results.append(made)
    return MLPerfResults(tuple(results), tuple(skipped))


def _system(rel: str, read: Callable[[str], bytes]) -> dict[str, str] | str:
    try:
        data = json.loads(read(rel).decode("utf-8"))
    except (ValueError, UnicodeDecodeError, ParseError) as exc:
        return f"systems description {rel} is not readable JSON: {exc}"
    if not isinstance(data, dict):
        return f"systems description {rel} is not a JSON object."
    return {str(k): str(v).strip() if v is not None else "" for k, v in data.items()}


@dataclass(frozen=True)
class _Summary:
    invalid_reason: str
    samples_per_s: float | None
    tokens_per_s: float | None
    latency: Percentiles
    ttft: Percentiles | None
    tpot: Percentiles | None


_NUMBER = r"([0-9]+(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?)"
_SAMPLES = re.compile(rf"^(?:Completed )?samples per second\s*:\s*{_NUMBER}", re.I | re.M)
_TOKENS = re.compile(
    rf"^(?:Completed )?tokens per second(?: \(inferred\))?\s*:\s*{_NUMBER}", re.I | re.M
)
_RESULT = re.compile(r"^Result is\s*:\s*(\S+)", re.M)
_CHECK = re.compile(r"^\s+(.+?)\s*:\s*(Yes|No)\s*$", re.M)
_STAT = re.compile(
    rf"^(Mean|(\d+\.\d+) percentile) ([a-z ]*?)\s*\(ns\)\s*:\s*{_NUMBER}\s*$", re.I | re.M
)
_PCT_FIELD = {
    "50.00": "p50",
    "90.00": "p90",
    "95.00": "p95",
    "97.00": "p97",
    "99.00": "p99",
    "99.90": "p999",
}


def _summary(text: str) -> _Summary:
    verdict = _RESULT.search(text)
    if verdict is None:
        raise ParseError("no 'Result is :' line; not an MLPerf log summary.")
    if verdict.group(1).upper() != "VALID":
        failed = [name for name, answer in _CHECK.findall(text) if answer == "No"]
        why = "; ".join(f"{name}: No" for name in failed) or "no check named"
        return _Summary(
            f"Result is {verdict.group(1)} ({why}).", None, None, Percentiles(), None, None
        )
    samples = _SAMPLES.search(text)
    tokens = _TOKENS.search(text)
    stats: dict[str, dict[str, float]] = {
        "latency": {},
        "first token latency": {},
        "time to output token": {},
    }
    for label, pct, metric, value in _STAT.findall(text):
        key = metric.strip().lower()
        if key not in stats:
            continue
        slot = "mean" if label.lower() == "mean" else _PCT_FIELD.get(pct)
        if slot:
            stats[key].setdefault(slot, float(value) / 1e6)  # ns → ms
    if samples is None and tokens is None:
        raise ParseError("no samples or tokens per second in a VALID summary.")
    return _Summary(
        "",
        float(samples.group(1)) if samples else None,
        float(tokens.group(1)) if tokens else None,
        Percentiles(**stats["latency"]),
        Percentiles(**stats["first token latency"]) if stats["first token latency"] else None,
        Percentiles(**stats["time to output token"]) if stats["time to output token"] else None,
    )


def _count(value: str) -> int | None:
    try:
        number = int(float(value))
    except ValueError:
        return None
    return number if number > 0 else None


def _result(
    rel: str,
    match: re.Match[str],
    benchmark: Benchmark,
    summary: _Summary,
    system: Mapping[str, str],
    round_id: str,
) -> MLPerfResult | MLPerfSkip:
    per_node = _count(system.get("accelerators_per_node", ""))
    nodes = _count(system.get("number_of_nodes", "1") or "1")
    accelerator = system.get("accelerator_model_name", "")
    if per_node is None or not accelerator or accelerator.upper() == "N/A":
        return MLPerfSkip(
            rel, "no-accelerator", "the system lists no accelerator (a CPU-only system)."
        )
    if nodes is None:
        return MLPerfSkip(
            rel, "unparseable", f"number_of_nodes {system.get('number_of_nodes')!r} is not a count."
        )
    value = summary.tokens_per_s if benchmark.result_unit == "tokens/s" else summary.samples_per_s
    if value is None:
        return MLPerfSkip(
            rel,
            "unparseable",
            f"the summary gives no {benchmark.result_unit} for {match['benchmark']}.",
        )
    return MLPerfResult(
        round=round_id,
        **{key: match[key] for key in ("division", "submitter", "system", "benchmark", "scenario")},
        model=benchmark.model,
        accuracy_target=benchmark.accuracy_target,
        result_per_s=value,
        result_unit=benchmark.result_unit,
        samples_per_s=summary.samples_per_s,
        tokens_per_s=summary.tokens_per_s,
        latency=summary.latency,
        ttft=summary.ttft,
        tpot=summary.tpot,
        limits=benchmark.limits.get(match["scenario"], LatencyLimits()),
        system_name=system.get("system_name", ""),
        accelerator_name=accelerator,
        accelerators_per_node=per_node,
        nodes=nodes,
        accelerator_interconnect=system.get("accelerator_interconnect", ""),
        framework=system.get("framework", ""),
        software=system.get("other_software_stack", ""),
        source_path=rel,
    )
