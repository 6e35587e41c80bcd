"""A4: the workload taxonomy has one home (core.workloads), spelled one way everywhere."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

from benchmarks import plan_rules
from briefs import rules
from briefs.models import WorkloadBrief, WorkloadClass
from core import workloads
from engine import types as engine_types

ROOT = Path(__file__).resolve().parents[2]


def test_the_model_choices_and_the_engine_classes_are_the_same_set() -> None:
    assert set(WorkloadClass.values) == workloads.ALL
    assert engine_types.WORKLOAD_CLASSES == workloads.ALL
    assert dict(WorkloadClass.choices) == workloads.LABELS


def test_every_group_reads_the_one_definition() -> None:
    assert engine_types.TRAINING_CLASSES == workloads.TRAINING
    assert engine_types.INFERENCE_CLASSES == workloads.SERVING
    # The brief rules and the plan rules read core.workloads directly, with no alias.
    assert not hasattr(rules, "ALL_CLASSES")
    assert not hasattr(plan_rules, "TRAINING_CLASSES")


def test_the_brief_and_the_engine_agree_on_what_is_training() -> None:
    for cls in workloads.ALL:
        brief = WorkloadBrief(workload_class=cls)
        assert brief.is_training == (cls in engine_types.TRAINING_CLASSES)


def test_no_second_definition_or_spelling_in_the_product() -> None:
    """No product module spells out a set of workload classes of its own."""
    files = subprocess.run(
        ["git", "ls-files", "*.py"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.split()
    quoted = [re.compile(rf"[\"']{c}[\"']") for c in sorted(workloads.ALL)]
    # Benchmark *file* kinds ("training", "media", "inference") are another vocabulary.
    other_vocabulary = {"benchmarks/parsers/run_json.py"}
    offending = []
    for name in files:
        if name.startswith(("tests/", "bench/")) or "/migrations/" in name:
            continue
        if name == "core/workloads.py" or name in other_vocabulary:
            continue
        for number, line in enumerate((ROOT / name).read_text().splitlines(), 1):
            if sum(1 for q in quoted if q.search(line)) >= 2:
                offending.append(f"{name}:{number}: {line.strip()}")
    assert offending == []
    spelled = subprocess.run(
        ["git", "grep", "-nE", "full_fine_tuning|adapter_fine_tuning", "--", "*.py", ":!tests"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    ).stdout
    assert spelled == ""


def test_the_taxonomy_module_is_pure() -> None:
    source = (ROOT / "core" / "workloads.py").read_text()
    imports = re.findall(r"^(?:from|import) ([\w.]+)", source, re.M)
    assert set(imports) <= {"__future__", "enum", "typing"}
