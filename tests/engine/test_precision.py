"""Precisions, bytes per value, hardware support, the engine error type and engine purity."""

from __future__ import annotations

import ast
import pickle
from pathlib import Path

import pytest

from engine.errors import EngineInputError
from engine.precision import (
    PRECISION_NAMES,
    PRECISIONS,
    bytes_per_value,
    hardware_support_note,
    is_supported_by,
    normalize_precision,
)

ENGINE_DIR = Path(__file__).resolve().parents[2] / "engine"
MY_MODULES = ("__init__.py", "errors.py", "precision.py", "memory/fit.py", "performance.py")


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("fp32", 4.0),
        ("bf16", 2.0),
        ("fp16", 2.0),
        ("fp8", 1.0),
        ("int8", 1.0),
        ("int4", 0.5),
        ("fp4", 0.5),
    ],
)
def test_bytes_per_value(name: str, expected: float) -> None:
    assert bytes_per_value(name) == expected


def test_all_seven_precisions_are_known() -> None:
    assert set(PRECISION_NAMES) == {"fp32", "bf16", "fp16", "fp8", "int8", "int4", "fp4"}


def test_names_are_case_and_space_insensitive() -> None:
    assert bytes_per_value(" BF16 ") == 2.0
    assert normalize_precision("FP8") == "fp8"


@pytest.mark.parametrize("name", ["fp6", "nf4", "", "bfloat16x", None, 16])
def test_unknown_precision_raises_with_the_callers_field(name: object) -> None:
    with pytest.raises(EngineInputError) as caught:
        bytes_per_value(name, field="kv_precision")
    assert caught.value.field == "kv_precision"
    assert "kv_precision" in str(caught.value)


def test_only_fp8_and_fp4_need_hardware_support() -> None:
    assert {name for name, p in PRECISIONS.items() if p.needs_hardware_support} == {"fp8", "fp4"}
    assert not is_supported_by("FP4", ("bf16",))
    assert is_supported_by("int4", ("bf16",))


def test_support_check_against_an_accelerator_list() -> None:
    a100 = ("fp32", "tf32", "bf16", "fp16", "int8")
    h100 = ("fp32", "bf16", "fp16", "fp8", "int8")
    assert not is_supported_by("fp8", a100)
    assert is_supported_by("fp8", h100)
    assert not is_supported_by("fp4", h100)
    assert is_supported_by("int4", a100)  # weight-only formats need nothing special
    assert is_supported_by("fp8", ())  # unknown support list: no warning without evidence
    assert is_supported_by("fp8", ("FP8",))


def test_hardware_note_only_when_support_is_missing() -> None:
    note = hardware_support_note("fp8", ("bf16", "fp16"), field="weight_precision")
    assert note is not None
    assert "fp8" in note
    assert "weight_precision" in note
    assert hardware_support_note("fp8", ("fp8",)) is None
    assert hardware_support_note("bf16", ("fp16",)) is None


def test_engine_input_error_carries_field_and_message_and_pickles() -> None:
    error = EngineInputError("context_tokens", "must be at least 1")
    assert isinstance(error, ValueError)
    assert error.field == "context_tokens"
    assert error.message == "must be at least 1"
    assert str(error) == "context_tokens: must be at least 1"
    copy = pickle.loads(pickle.dumps(error))  # noqa: S301 - our own object
    assert (copy.field, copy.message) == (error.field, error.message)


@pytest.mark.parametrize("module", MY_MODULES)
def test_engine_module_imports_only_stdlib_numpy_and_engine(module: str) -> None:
    allowed_roots = {
        "__future__",
        "collections",
        "dataclasses",
        "math",
        "numbers",
        "types",
        "typing",
        "numpy",
    }
    tree = ast.parse((ENGINE_DIR / module).read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            names = [node.module or ""]
        else:
            continue
        for name in names:
            assert name.startswith("engine") or name.split(".")[0] in allowed_roots, (
                f"{module} imports {name}"
            )
