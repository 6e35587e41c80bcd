"""The MLPerf Inference results-tree reader (pure: small trees written here, no database)."""

from __future__ import annotations

import io
import json
import tarfile
import zipfile
from pathlib import Path

import pytest

from benchmarks.parsers.errors import ParseError
from benchmarks.parsers.mlperf_results import read_results_archive, read_results_tree
from catalog.importers.mlperf_names import catalog_accelerator_for

CATALOG = json.loads(
    (Path(__file__).resolve().parents[2] / "catalog/data/accelerators.json").read_text()
)

SERVER_VALID = """\
================================================
MLPerf Results Summary
================================================
SUT name : llama2-70b-Server-SUT-LoadGen
Scenario : Server
Mode     : PerformanceOnly
Completed samples per second    : 32.73
Completed tokens per second: 9522.20
Result is : VALID
  Performance constraints satisfied : Yes
  Min duration satisfied : Yes

================================================
Additional Stats
================================================
50.00 percentile latency (ns)   : 41767774744
99.00 percentile latency (ns)   : 158593580528
Mean First Token latency (ns)                : 285922359
99.00 percentile first token latency (ns)   : 495036918
50.00 percentile time to output token (ns)   : 170305058
99.00 percentile time to output token (ns)   : 186448225
"""

OFFLINE_VALID = """\
Scenario : Offline
Samples per second: 10.4445
Tokens per second: 3062.72
Result is : VALID
  Min duration satisfied : Yes
50.00 percentile latency (ns)   : 2352904158217
"""

SERVER_INVALID = """\
Scenario : Server
Completed samples per second    : 40.1
Completed tokens per second: 11000.5
Result is : INVALID
  Performance constraints satisfied : No
  Min duration satisfied : Yes
"""


def _system(accelerator: str, per_node: str, nodes: str = "1") -> str:
    return json.dumps(
        {
            "division": "closed",
            "system_name": f"Box with {accelerator}",
            "accelerator_model_name": accelerator,
            "accelerators_per_node": per_node,
            "number_of_nodes": nodes,
            "accelerator_interconnect": "18x 4th Gen NVLink, 900GB/s",
            "framework": "TensorRT 10.2.0, CUDA 12.4",
            "other_software_stack": "TensorRT-LLM 0.12",
        }
    )


def _summary_path(submitter: str, system: str, bench: str, scenario: str) -> str:
    run = "performance/run_1/mlperf_log_summary.txt"
    return f"closed/{submitter}/results/{system}/{bench}/{scenario}/{run}"


def _tree() -> dict[str, str]:
    return {
        "closed/Acme/systems/H100x8.json": _system("NVIDIA H100-SXM-80GB", "8"),
        _summary_path("Acme", "H100x8", "llama2-70b-99", "Server"): SERVER_VALID,
        _summary_path("Acme", "H100x8", "llama2-70b-99", "Offline"): OFFLINE_VALID,
        _summary_path("Acme", "H100x8", "llama2-70b-99.9", "Server"): SERVER_INVALID,
        "closed/Acme/systems/H100x32.json": _system("NVIDIA H100-SXM-80GB", "8", "4"),
        _summary_path("Acme", "H100x32", "llama2-70b-99", "Offline"): OFFLINE_VALID,
        _summary_path(
            "Acme", "Ghost", "llama2-70b-99", "Offline"
        ): OFFLINE_VALID,  # no systems JSON
        _summary_path("Acme", "H100x8", "resnet50", "Offline"): OFFLINE_VALID,
        _summary_path("Acme", "H100x8", "gptj-99", "Offline"): "garbage\n",
    }


def _write(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


def _by_key(results):
    return {(r.system, r.benchmark, r.scenario): r for r in results}


def test_a_tree_yields_valid_results_and_skips_each_bad_entry_with_its_reason(tmp_path):
    root = _write(tmp_path / "mlperf-inference-v4.1", _tree())
    out = read_results_tree(root)
    got = _by_key(out.results)
    assert set(got) == {
        ("H100x8", "llama2-70b-99", "Server"),
        ("H100x8", "llama2-70b-99", "Offline"),
        ("H100x32", "llama2-70b-99", "Offline"),
    }
    server = got["H100x8", "llama2-70b-99", "Server"]
    assert server.round == "v4.1"
    assert (server.division, server.submitter, server.model, server.accuracy_target) == (
        "closed",
        "Acme",
        "llama2-70b",
        "99",
    )
    assert server.result_per_s == pytest.approx(9522.20)
    assert server.result_unit == "tokens/s"
    assert server.samples_per_s == pytest.approx(32.73)
    # 9,522.20 tokens/s over 8 GPUs = 1,190.275 per GPU
    assert server.gpus == 8
    assert server.result_per_gpu_s == pytest.approx(1190.275)
    assert server.ttft is not None
    assert server.tpot is not None
    assert server.ttft.p99 == pytest.approx(495.036918)  # ns → ms
    assert server.tpot.p99 == pytest.approx(186.448225)
    assert server.latency.p50 == pytest.approx(41767.774744)
    assert (server.limits.ttft_ms, server.limits.tpot_ms) == (2000.0, 200.0)
    assert server.accelerator_name == "NVIDIA H100-SXM-80GB"
    assert server.framework == "TensorRT 10.2.0, CUDA 12.4"
    assert server.source_path == _summary_path("Acme", "H100x8", "llama2-70b-99", "Server")

    offline = got["H100x8", "llama2-70b-99", "Offline"]
    assert offline.ttft is None
    assert offline.limits.ttft_ms is None

    multi = got["H100x32", "llama2-70b-99", "Offline"]
    assert (multi.accelerators_per_node, multi.nodes, multi.gpus) == (8, 4, 32)

    skipped = {s.source_path.split("/results/")[1].split("/performance")[0]: s for s in out.skipped}
    assert skipped["H100x8/llama2-70b-99.9/Server"].kind == "invalid"
    assert (
        "Performance constraints satisfied: No" in skipped["H100x8/llama2-70b-99.9/Server"].reason
    )
    assert skipped["Ghost/llama2-70b-99/Offline"].kind == "no-system"
    assert "closed/Acme/systems/Ghost.json" in skipped["Ghost/llama2-70b-99/Offline"].reason
    assert skipped["H100x8/resnet50/Offline"].kind == "unknown-benchmark"
    assert skipped["H100x8/gptj-99/Offline"].kind == "unparseable"
    assert len(out.skipped) == 4


def test_an_archive_reads_like_the_tree_and_refuses_paths_outside_it(tmp_path):
    files = {f"inference_results_v4.1/{rel}": text for rel, text in _tree().items()}
    zipped = tmp_path / "results.zip"
    with zipfile.ZipFile(zipped, "w") as archive:
        for rel, text in files.items():
            archive.writestr(rel, text)
    tarred = tmp_path / "results.tar.gz"
    with tarfile.open(tarred, "w:gz") as archive:
        for rel, text in files.items():
            data = text.encode()
            info = tarfile.TarInfo(rel)
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
    for path in (zipped, tarred):
        out = read_results_archive(path)
        assert len(out.results) == 3
        assert len(out.skipped) == 4
        assert {r.round for r in out.results} == {"v4.1"}

    evil = tmp_path / "evil.zip"
    with zipfile.ZipFile(evil, "w") as archive:
        archive.writestr("../closed/Acme/systems/x.json", "{}")
    with pytest.raises(ParseError, match="outside the archive"):
        read_results_archive(evil)


def test_an_oversized_member_is_refused(tmp_path, monkeypatch):
    import benchmarks.parsers.mlperf_results as reader

    monkeypatch.setattr(reader, "MAX_MEMBER_BYTES", 100)
    big = tmp_path / "big.zip"
    with zipfile.ZipFile(big, "w") as archive:
        archive.writestr(_summary_path("Acme", "H100x8", "llama2-70b-99", "Server"), SERVER_VALID)
    with pytest.raises(ParseError, match="larger than 100 bytes"):
        read_results_archive(big)


def test_not_a_folder_is_a_clear_error(tmp_path):
    with pytest.raises(ParseError, match="not a folder"):
        read_results_tree(tmp_path / "missing")


@pytest.mark.parametrize(
    ("name", "slug"),
    [
        ("NVIDIA H100-SXM-80GB", "h100-sxm-80gb"),
        ("NVIDIA H100-PCIe-80GB", "h100-pcie-80gb"),
        ("NVIDIA H100-NVL-94GB", "h100-nvl-94gb"),
        ("NVIDIA H200-SXM-141GB-CTS", "h200-sxm-141gb"),
        ("NVIDIA L40S", "l40s-48gb"),
        ("AMD Instinct MI300X-NPS1-SPX-192GB-750W", "mi300x-192gb"),
        ("NVIDIA GH200 Grace Hopper Superchip 96GB", "gh200-96gb"),
        ("NVIDIA B200-SXM-180GB", "b200-hgx-180gb"),
    ],
)
def test_mlperf_accelerator_names_map_to_the_catalog(name, slug):
    assert catalog_accelerator_for(name, CATALOG).slug == slug


@pytest.mark.parametrize(
    ("name", "why"),
    [
        ("NVIDIA Jetson AGX Orin 64G", "no catalog accelerator"),
        ("N/A", "no accelerator named"),
    ],
)
def test_unknown_mlperf_accelerators_are_refused_with_a_reason(name, why):
    match = catalog_accelerator_for(name, CATALOG)
    assert match.slug is None
    assert why in match.reason


def test_a_memory_size_the_catalog_lacks_is_refused_not_taken_for_a_sibling():
    entries = [e for e in CATALOG if e["slug"] != "gh200-144gb"]
    match = catalog_accelerator_for("NVIDIA GH200 Grace Hopper Superchip 144GB", entries)
    assert match.slug is None
    assert "none 144 GB" in match.reason
