"""Numeric precisions and how many bytes one stored value takes.

bytes_per_value: fp32 4 · bf16 2 · fp16 2 · fp8 1 · int8 1 · int4 0.5 · fp4 0.5
(IEEE 754 / OCP FP8 and MX formats; 4-bit values pack two per byte).

These are raw storage sizes. Quantisation metadata (per-group scales, zero points) is
not included here; callers that model it say so (QLoRA in ``memory_fit``).

Hardware support: fp8 and fp4 are storage *and* compute formats that need native
tensor-core support (fp8: Hopper, Ada, Blackwell, MI300; fp4: Blackwell, MI355X).
Without it a serving stack can still store weights in them (weight-only kernels or
emulation) but loses the speed-up, so the engine warns instead of refusing.
16/32-bit floats and integer weight-only formats run on every current accelerator.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from types import MappingProxyType

from engine.errors import EngineInputError


@dataclass(frozen=True, slots=True)
class Precision:
    """One numeric format: its id, storage size and whether it needs native hardware."""

    name: str
    bytes_per_value: float
    needs_hardware_support: bool


PRECISIONS: Mapping[str, Precision] = MappingProxyType(
    {
        "fp32": Precision("fp32", 4.0, needs_hardware_support=False),
        "bf16": Precision("bf16", 2.0, needs_hardware_support=False),
        "fp16": Precision("fp16", 2.0, needs_hardware_support=False),
        "fp8": Precision("fp8", 1.0, needs_hardware_support=True),
        "int8": Precision("int8", 1.0, needs_hardware_support=False),
        "int4": Precision("int4", 0.5, needs_hardware_support=False),
        "fp4": Precision("fp4", 0.5, needs_hardware_support=True),
    }
)

PRECISION_NAMES: tuple[str, ...] = tuple(PRECISIONS)


def get_precision(name: object, *, field: str = "precision") -> Precision:
    """Look up a precision by id (case and surrounding spaces ignored).

    Raises ``EngineInputError(field, ...)`` for anything that is not a known id.
    """
    if not isinstance(name, str):
        raise EngineInputError(field, f"must be one of {', '.join(PRECISION_NAMES)}")
    key = name.strip().lower()
    try:
        return PRECISIONS[key]
    except KeyError:
        raise EngineInputError(
            field, f"unknown precision {name!r}; use one of {', '.join(PRECISION_NAMES)}"
        ) from None


def normalize_precision(name: object, *, field: str = "precision") -> str:
    """The canonical lowercase id of ``name`` ("BF16 " -> "bf16")."""
    return get_precision(name, field=field).name


def bytes_per_value(name: object, *, field: str = "precision") -> float:
    """Bytes one value takes when stored at precision ``name``."""
    return get_precision(name, field=field).bytes_per_value


def is_supported_by(name: object, supported: Iterable[str], *, field: str = "precision") -> bool:
    """Whether an accelerator listing ``supported`` precisions runs ``name`` natively.

    Formats that need no special hardware are always supported. An empty list means
    "unknown", which is treated as supported: the engine warns only on evidence.
    """
    precision = get_precision(name, field=field)
    if not precision.needs_hardware_support:
        return True
    listed = {s.strip().lower() for s in supported}
    return not listed or precision.name in listed


def hardware_support_note(
    name: object, supported: Iterable[str], *, field: str = "precision"
) -> str | None:
    """A warning sentence when ``name`` needs hardware the accelerator lacks, else None."""
    supported = tuple(supported)
    if is_supported_by(name, supported, field=field):
        return None
    precision = get_precision(name, field=field)
    return (
        f"{field} {precision.name} is not among the accelerator's supported precisions "
        f"({', '.join(supported)}): memory is counted at {precision.bytes_per_value:g} "
        "byte(s) per value, but there is no native compute path, so expect weight-only or "
        "emulated kernels and check the serving stack supports it"
    )
