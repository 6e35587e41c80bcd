"""Issue 36, importing published MLPerf results: small trees in the results repositories'
layout written here (an INVALID run, a multi-node system, an unknown accelerator, a missing
systems JSON, an unknown benchmark), imported atomically and idempotently."""

from __future__ import annotations

import dataclasses
import json
import tarfile
import zipfile
from io import StringIO
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import DataError
from django.urls import reverse

from benchmarks.mlperf_fit_data import rows_for
from benchmarks.models import PublishedResult
from benchmarks.parsers.mlperf_results import read_results_tree
from benchmarks.selectors.published import published_results_for
from benchmarks.services import published
from catalog.services.seed_data import catalog_load
from tests.mlperf_tree import mlperf_results_tree

pytestmark = pytest.mark.django_db


def import_path(path: Path) -> published.ImportReport:
    """A results folder or archive imported as the import command does."""
    entries, skipped = published.entries_from_reader(published.read_published(path))
    return published.published_results_import(entries, skipped)


OFFLINE = """\
Scenario : Offline
Samples per second: 100.0
Tokens per second: 29445.0
Result is : VALID
  Min duration satisfied : Yes
"""
SERVER_INVALID = """\
Scenario : Server
Completed samples per second    : 40.1
Completed tokens per second: 11000.5
Result is : INVALID
  Performance constraints satisfied : No
"""


def _system(accelerator: str, per_node: int, nodes: int) -> str:
    return json.dumps(
        {
            "accelerator_model_name": accelerator,
            "accelerators_per_node": per_node,
            "number_of_nodes": nodes,
            "framework": "TensorRT 10.2.0, CUDA 12.4",
            "system_name": "test system",
            "division": "closed",
        }
    )


def _write(root: Path, rel: str, text: str) -> None:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def _summary(submitter: str, system: str, benchmark: str, scenario: str) -> str:
    return (
        f"closed/{submitter}/results/{system}/{benchmark}/{scenario}/performance/run_1/"
        "mlperf_log_summary.txt"
    )


@pytest.fixture
def tree(tmp_path) -> Path:
    root = tmp_path / "inference_results_v4.1"
    # a two-node system of 8 H100 SXM each: 16 GPUs
    _write(root, "closed/Acme/systems/two_nodes.json", _system("NVIDIA H100-SXM-80GB", 8, 2))
    _write(root, _summary("Acme", "two_nodes", "llama2-70b-99", "Offline"), OFFLINE)
    _write(root, _summary("Acme", "two_nodes", "llama2-70b-99", "Server"), SERVER_INVALID)
    # an accelerator the catalog does not name (an edge module)
    _write(root, "closed/Acme/systems/gh.json", _system("NVIDIA Jetson AGX Orin 64G", 1, 1))
    _write(root, _summary("Acme", "gh", "llama2-70b-99", "Offline"), OFFLINE)
    # a summary whose systems JSON is missing
    _write(root, _summary("Acme", "ghost", "llama2-70b-99", "Offline"), OFFLINE)
    return root


def _skipped_reasons(report: published.ImportReport) -> dict[str, str]:
    return {s.path.split("/results/")[1].split("/performance")[0]: s.reason for s in report.skipped}


def test_a_tree_imports_its_valid_results_and_lists_the_others_with_their_reasons(tree):
    catalog_load()
    report = import_path(tree)
    assert (report.created, report.updated, report.unchanged) == (1, 0, 0)
    row = PublishedResult.objects.get()
    assert row.round == "MLPerf Inference v4.1"
    assert row.accelerator.slug == "h100-sxm-80gb"
    assert (row.accelerators_per_node, row.nodes, row.gpu_count) == (8, 2, 16)
    # 29,445 output tokens/s over 16 GPUs = 1,840.3125 per GPU
    assert row.throughput_per_gpu == pytest.approx(1840.3125)
    assert row.unit == "tokens"
    assert row.model_profile.slug == "llama-2-70b"
    assert row.framework == "TensorRT 10.2.0, CUDA 12.4"
    assert row.source_path == _summary("Acme", "two_nodes", "llama2-70b-99", "Offline")
    assert row.licence.startswith("Apache License 2.0")
    reasons = _skipped_reasons(report)
    assert set(reasons) == {
        "two_nodes/llama2-70b-99/Server",
        "gh/llama2-70b-99/Offline",
        "ghost/llama2-70b-99/Offline",
    }
    assert "INVALID" in reasons["two_nodes/llama2-70b-99/Server"]
    assert "accelerator not identified" in reasons["gh/llama2-70b-99/Offline"]
    assert "JETSONAGXORIN" in reasons["gh/llama2-70b-99/Offline"]
    assert "system" in reasons["ghost/llama2-70b-99/Offline"].lower()


def test_reimporting_is_idempotent_and_a_changed_figure_updates_in_place(tree):
    catalog_load()
    import_path(tree)
    again = import_path(tree)
    assert (again.created, again.updated, again.unchanged) == (0, 0, 1)
    _write(
        tree,
        _summary("Acme", "two_nodes", "llama2-70b-99", "Offline"),
        OFFLINE.replace("29445.0", "32000.0"),
    )
    changed = import_path(tree)
    assert (changed.created, changed.updated) == (0, 1)
    assert PublishedResult.objects.get().throughput_per_gpu == pytest.approx(2000.0)


def test_an_archive_imports_the_same(tree, tmp_path):
    catalog_load()
    archive = tmp_path / "inference_results_v4.1.tar.gz"
    with tarfile.open(archive, "w:gz") as tar:
        tar.add(tree, arcname="inference_results_v4.1")
    report = import_path(archive)
    assert report.created == 1
    assert len(report.skipped) == 3


def test_an_unknown_benchmark_or_a_model_the_catalog_lacks_is_skipped(tree):
    catalog_load()
    entry = published.Entry(
        round="MLPerf Inference v4.1",
        submitter="Acme",
        system="two_nodes",
        benchmark="bert-99",
        scenario="Offline",
        accelerator="h100-sxm-80gb",
        accelerator_name="NVIDIA H100-SXM-80GB",
        accelerators_per_node=8,
        nodes=1,
        throughput=1000.0,
        unit="samples",
        source_path="closed/Acme/results/two_nodes/bert-99/Offline/x.txt",
    )
    report = published.published_results_import([entry])
    assert report.imported == 0
    assert report.skipped[0].reason == "benchmark 'bert-99' has no model profile in the catalog"


def test_nothing_is_half_imported_when_one_write_fails(tree):
    catalog_load()
    entries, skipped = published.entries_from_reader(published.read_published(tree))
    # a node count past the column's range: the database refuses the second write
    broken = dataclasses.replace(entries[0], system="other", nodes=2**31)
    with pytest.raises(DataError):
        published.published_results_import([entries[0], broken], skipped)
    assert not PublishedResult.objects.exists()


def test_the_command_imports_a_folder_and_refuses_a_missing_path_clearly(tree, tmp_path):
    catalog_load()
    out = StringIO()
    call_command("import_mlperf", str(tree), stdout=out)
    assert out.getvalue().startswith(
        "1 published results (1 new, 0 updated, 0 unchanged), 3 skipped"
    )
    assert "INVALID" in out.getvalue()
    with pytest.raises(CommandError, match="does not exist"):
        call_command("import_mlperf", str(tmp_path / "nowhere"))
    with pytest.raises(CommandError, match="not both"):
        call_command("import_mlperf", str(tree), "--seed")


def _archive(tree: Path, tmp_path: Path) -> Path:
    archive = tmp_path / "inference_results_v4.1.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        for path in tree.rglob("*"):
            if path.is_file():
                zf.write(path, path.relative_to(tree).as_posix())
    return archive


def test_the_upload_page_imports_an_archive_for_a_platform_engineer(
    tree, tmp_path, client, login, engineer
):
    catalog_load()
    login(engineer)
    archive = _archive(tree, tmp_path)
    with archive.open("rb") as fh:
        page = client.post(reverse("benchmarks:published-list"), {"archive": fh})
    assert page.status_code == 200
    text = page.content.decode()
    assert "Imported 1 published results (1 new, 0 updated, 0 unchanged), 3 skipped" in text
    assert "INVALID" in text
    assert PublishedResult.objects.get().round == "MLPerf Inference v4.1"
    assert "Llama 2 70B" in client.get(reverse("benchmarks:published-list")).content.decode()


def test_the_upload_page_refuses_a_file_that_is_not_an_archive_and_saves_nothing(
    client, login, engineer
):
    catalog_load()
    login(engineer)
    page = client.post(
        reverse("benchmarks:published-list"),
        {"archive": SimpleUploadedFile("summary.txt", b"Result is : VALID")},
    )
    assert page.status_code == 400
    assert "Upload the results as a .zip or .tar.gz archive" in page.content.decode()
    assert not PublishedResult.objects.exists()


def test_only_platform_engineers_import_and_vendors_never_see_the_page(
    tree, tmp_path, client, login, finance, vendor_a
):
    login(finance)
    assert client.get(reverse("benchmarks:published-list")).status_code == 200
    archive = _archive(tree, tmp_path)
    with archive.open("rb") as fh:
        assert client.post(reverse("benchmarks:published-list"), {"archive": fh}).status_code == 403
    login(vendor_a)
    assert client.get(reverse("benchmarks:published-list")).status_code == 404


def test_a_name_longer_than_its_column_is_skipped_with_the_reason(tree):
    catalog_load()
    entries, _ = published.entries_from_reader(published.read_published(tree))
    long = dataclasses.replace(entries[0], system="x" * 201)
    report = published.published_results_import([long])
    assert report.imported == 0
    assert report.skipped[0].reason == "its system is longer than 200 characters"


def test_a_serving_engine_named_only_in_the_software_stack_labels_the_result(tmp_path):
    """RedHat's L40S system gives "CUDA 12.2" as its framework and vLLM 0.5.1 in its
    `other_software_stack`: the import labels it vLLM and serves it as vLLM, as the fit data
    reads it (one function for both)."""
    catalog_load()
    root = tmp_path / "inference_results_v4.1"
    system = {
        "accelerator_model_name": "NVIDIA L40S",
        "accelerators_per_node": "4",
        "number_of_nodes": "1",
        "accelerator_interconnect": "PCIe",
        "framework": "CUDA 12.2",
        "other_software_stack": {"cuda_version": "12.2", "vllm": "0.5.1"},
        "system_name": "L40S-OpenShift",
    }
    _write(root, "closed/RedHat/systems/L40S-OpenShift.json", json.dumps(system))
    _write(root, _summary("RedHat", "L40S-OpenShift", "llama2-70b-99", "Offline"), OFFLINE)
    assert import_path(root).created == 1
    row = PublishedResult.objects.get()
    assert row.framework == "vLLM, CUDA 12.2"
    (item,) = published_results_for([row.accelerator_id], row.model_profile_id)
    assert item["serving_engine"] == "vllm"
    assert item["published"]["software"] == "vLLM, CUDA 12.2"
    # the fit data's serving software of the same result, read by the same function
    catalog = Path(published.__file__).resolve().parents[2] / "catalog" / "data"
    accelerators = json.loads((catalog / "accelerators.json").read_text())
    profiles = {p["slug"]: p for p in json.loads((catalog / "model_profiles.json").read_text())}
    (fit_row,), _ = rows_for(read_results_tree(root).results, accelerators, profiles)
    assert fit_row["software"] == "vllm"


def test_a_framework_that_names_its_engine_is_kept_as_written(tree):
    catalog_load()
    import_path(tree)
    row = PublishedResult.objects.get()
    assert row.framework == "TensorRT 10.2.0, CUDA 12.4"
    (item,) = published_results_for([row.accelerator_id], row.model_profile_id)
    assert item["serving_engine"] == "tensorrt-llm"


def test_the_shipped_seed_is_what_the_importer_makes_of_the_results():
    """Each result of the seed, its source path and labels, as the import reads the v4.1 tree
    (skipped, saying where it looked, when the tree is not at hand)."""
    catalog_load()
    tree = mlperf_results_tree()
    entries, skipped = published.entries_from_reader(published.read_published(tree))
    document = json.loads(published.SEED.read_text(encoding="utf-8"))
    assert document["licence"] == published.LICENCE
    assert published.entries_from_seed(document) == (entries, skipped)
