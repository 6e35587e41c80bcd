"""What every candidate of one snapshot shares, and small helpers. Pure: no Django."""

from __future__ import annotations

import copy
import math
from collections.abc import Callable, Collection, Hashable, Mapping
from dataclasses import replace
from datetime import datetime
from decimal import Decimal
from typing import TypeVar, cast

from catalog.regions import boundary_reason
from engine import fitted
from engine.calibration import CalibrationSummary, calibrated_range, ledger_key, model_key
from engine.memory.fit import GpuSpec, ModelSpec
from engine.types import Range, WorkloadInput
from procurement.snapshot.schema import (
    AcceleratorRow,
    BriefRow,
    CalibrationRow,
    Effective,
    ModelRow,
    Snapshot,
)
from procurement.snapshot.workload import engine_class

T = TypeVar("T")


def quote_key(quote_id: int) -> str:
    return f"quote:{quote_id}"


def route_key(route_id: int) -> str:
    return f"api:{route_id}"


def engine_version_of(snap: Mapping[str, object]) -> tuple[int, ...]:
    """The engine version a snapshot was frozen under; (0,) when it records none."""
    raw = str(snap.get("engine_version") or "")
    try:
        return tuple(int(part) for part in raw.split("."))
    except ValueError:
        return (0,)


class Context:
    """What every candidate of one snapshot shares (brief, model, rates, assumptions)."""

    def __init__(self, snap: Snapshot, workload: WorkloadInput) -> None:
        self.snap = snap
        self.brief: BriefRow = snap["brief"]
        self.a: Effective = snap["assumptions"]["effective"]
        self.workload = workload
        self.cls = engine_class(self.brief)
        self.as_of = datetime.fromisoformat(snap["as_of"])
        self.model_row: ModelRow = snap.get("model") or {}
        spec = self.model_row.get("spec")
        self.model = ModelSpec(**spec) if spec else None
        self.allowed = [r.strip().lower() for r in self.brief.get("allowed_regions") or [] if r]
        self.checklist = snap.get("checklist")
        self.results = snap["measured"]["results"]
        self.published = snap["measured"].get("published") or []
        self.calibration: dict[str, CalibrationRow] = snap.get("calibration") or {}
        # A snapshot keeps the estimator it was frozen under (ADR 0003): one frozen before
        # the fitted estimate thaws and recomputes on the unfitted roofline, a fitted one on
        # the parameters of its engine version.
        self.fitted_version = fitted.version_for(engine_version_of(snap))
        self.fitted = self.fitted_version is not None
        self._memo: dict[tuple[Hashable, ...], object] = {}

    def without_results(self, result_ids: Collection[int | str | None]) -> Context:
        """The same context without some benchmark results (the memo is shared: fits and
        estimates do not depend on the results)."""
        other = copy.copy(self)
        other.results = [r for r in self.results if r.get("result_id") not in result_ids]
        return other

    def memo(self, key: tuple[Hashable, ...], build: Callable[[], T]) -> T:
        """Memory fits and estimates depend on the accelerator and node shape, not the quote:
        compute each once per snapshot (hundreds of quotes share a few shapes). A key's first
        item names what built it, so one key always holds one type."""
        if key not in self._memo:
            self._memo[key] = build()
        return cast(T, self._memo[key])

    def rate(self, currency: str) -> Decimal | None:
        found = self.snap["fx_rates"].get(currency)
        return None if found is None else Decimal(found["rate_to_base"])

    def boundary_reason(self, regions: list[str]) -> str | None:
        """Why the regions fall outside the brief's data boundary (None: inside, or no
        boundary). Regions are geography (`catalog.regions`): `eu-west-2` is in Europe."""
        return boundary_reason(regions, self.allowed)

    def private_endpoint_reason(
        self, offered: str | None, on: str = "quote", *, verified: bool = True
    ) -> str | None:
        """Why an offer fails the brief's private-endpoint requirement (None: it meets
        it, or the brief requires none). "Not stated" is not shown to meet it, as a region
        not stated is not shown inside a boundary: the row is ineligible and says so. A
        vendor's "yes" counts once a reviewer accepted its network-boundary answer
        (`verified`), not on the vendor's word alone (S11)."""
        if not self.brief.get("private_endpoint_required"):
            return None
        if offered == "yes":
            if verified:
                return None
            return (
                "states a private endpoint, but no reviewer has accepted the vendor's "
                "network-boundary evidence yet"
            )
        if offered == "no":
            return "offers no private endpoint; the brief requires one"
        return (
            "does not state whether it offers a private endpoint, so it cannot be shown to "
            f"meet the brief's requirement (record it on the {on})"
        )

    def age_days(self, quoted_at: str) -> float:
        return max(0.0, (self.as_of - datetime.fromisoformat(quoted_at)).total_seconds() / 86400)

    def is_stale(self, quoted_at: str, valid_until: str | None) -> bool:
        late = valid_until is not None and datetime.fromisoformat(valid_until) < self.as_of
        return late or self.age_days(quoted_at) > int(self.snap.get("stale_quote_days") or 30)

    def expired_on(self, valid_until: str | None) -> str:
        """The date a price stopped being valid, when it did before the comparison (P19)."""
        if valid_until is None or datetime.fromisoformat(valid_until) >= self.as_of:
            return ""
        return f"{datetime.fromisoformat(valid_until):%Y-%m-%d}"

    def days_until_capacity(self, available_from: str | None, lead_days: int | None) -> float:
        """Days from the comparison until the capacity can be used (P5): the later of its
        stated date and its lead time from an order placed now."""
        days = float(lead_days or 0)
        if available_from:
            wait = (datetime.fromisoformat(available_from) - self.as_of).total_seconds() / 86400
            days = max(days, wait)
        return round(max(0.0, days), 3)

    def spread(self, value: float, source: str, widen: tuple[float, float] = (1.0, 1.0)) -> Range:
        """Throughput range: the source's spread factors, widened for proxies and scaling."""
        if source not in ("estimated", "measured", "proxy", "published"):
            # A misspelt source once gave every estimated media row the measured spread.
            raise ValueError(f"unknown throughput source {source!r}")
        prefix = "estimate" if source == "estimated" else "measured"
        low = min(1.0, float(self.a[f"{prefix}_spread_low"]) * widen[0])
        high = max(1.0, float(self.a[f"{prefix}_spread_high"]) * widen[1])
        return Range(value * low, value, value * high)


def gpu_spec_of(acc: AcceleratorRow, *, gpus_per_node: int) -> GpuSpec:
    """The accelerator's frozen datasheet as the engine's GpuSpec, in the quote's node."""
    spec = acc["spec"]
    return replace(
        GpuSpec(
            memory_gb=spec["memory_gb"],
            memory_bandwidth_tbps=spec.get("memory_bandwidth_tbps"),
            bf16_dense_tflops=spec.get("bf16_dense_tflops"),
            fp8_dense_tflops=spec.get("fp8_dense_tflops"),
            fp4_dense_tflops=spec.get("fp4_dense_tflops"),
            interconnect_gbps=spec.get("interconnect_gbps"),
            supported_precisions=tuple(spec.get("supported_precisions") or ()),
            memory_unit=spec.get("memory_unit", "GB"),
        ),
        max_gpus_per_node=gpus_per_node,
    )


def calibrated_spread(ctx: Context, value: float, accelerator: str) -> tuple[Range, str] | None:
    """An estimate's range from the ledger's observed measured / estimate ratios of this
    model at the brief's weight precision for its workload class on this accelerator
    (engine/calibration.py), or None when the ledger holds none. Another model's,
    precision's or class's pairs never move this estimate. A snapshot frozen by engine 1.4.0
    keyed its summaries by accelerator and model only: read as it was frozen."""
    model = ctx.snap.get("model") or {}
    name = f"profile:{model['id']}" if model.get("id") else f"name:{model.get('name', '')}"
    key = ledger_key(
        accelerator,
        name,
        str(ctx.brief.get("weight_precision") or ""),
        str(ctx.brief.get("workload_class") or ""),
    )
    found = ctx.calibration.get(key) or ctx.calibration.get(model_key(accelerator, name))
    if not found:
        return None
    summary = CalibrationSummary(**found)
    default = (float(ctx.a["estimate_spread_low"]), float(ctx.a["estimate_spread_high"]))
    return calibrated_range(value, summary, default)


def money(value: str | float | Decimal | None, rate: Decimal) -> Decimal:
    return Decimal(0) if value in (None, "") else Decimal(str(value)) * rate


def rounded(value: float | None, digits: int = 3) -> float | None:
    return None if value is None or not math.isfinite(value) else round(value, digits)


def latency_met(
    brief: BriefRow, ttft: float | None, itl: float | None, e2e: float | None
) -> bool | None:
    """False when a figure exceeds its target; None lets the engine decide (unknown → warn)."""
    pairs = (
        (brief.get("ttft_p95_ms"), ttft),
        (brief.get("itl_p95_ms"), itl),
        (brief.get("e2e_p99_ms"), e2e),
    )
    if any(t and v is not None and v > t for t, v in pairs):
        return False
    return None
