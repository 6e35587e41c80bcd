"""Snapshot quotes → the engine's `CandidateInput`, plus the facts each row
shows (fit, performance and its source, checklist, eligibility). Pure: no Django.

Eligibility facts (docs/domain.md; the engine turns them into blocking warnings):

- memory: the memory fit at the brief's p95 context (p95 input + output) and concurrency,
  for inference; the brief's target GPUs for training. A quote offers at most
  `max_gpus_available` GPUs (unbounded when the quote does not say); nodes hold
  `gpus_per_node` GPUs;
- data boundary: the quote's region must lie inside the brief's allowed regions, when the
  brief lists any, read as geography (`catalog.regions`); the reason names the region; a
  brief requiring a private endpoint needs an offer that states one (not stated: ineligible);
- latency: measured figures when a parsed benchmark exists (this quote's first, else the
  same accelerator's), else the roofline estimate; a target exceeded makes the row
  ineligible (TTFT p95, inter-token p95, end-to-end p99);
- checklist: the summary's `complete` flag (evidence the commitment level needs);
- FX: a currency other than the base without a rate is flagged and never converted.

Units: the quote's `inter_node_bandwidth_gbps` is read as Gb/s per node and turned into GB/s
per GPU (÷ 8 ÷ GPUs per node), the engine's unit for fabric bars.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal

from engine.deployments import Configuration, choose_configuration
from engine.errors import EngineInputError
from engine.memory.spec import GpuSpec
from engine.operating_points.costs import point_costs
from engine.performance import peak_dense_tflops
from engine.types import (
    HOURS_PER_MONTH,
    CandidateInput,
    PurchaseSpec,
    Range,
    WorkloadInput,
)
from engine.types.common import ThroughputUnit
from procurement.snapshot.assumptions import scalar
from procurement.snapshot.context import (
    Context,
    calibrated_spread,
    gpu_spec_of,
    latency_met,
    money,
    quote_key,
    rounded,
)
from procurement.snapshot.deployments import (
    configuration_facts,
    estimated,
    quote_configurations,
    verdict_facts,
)
from procurement.snapshot.facts import (
    SWEEP_FACT,
    ChecklistFacts,
    CostedPoint,
    EngineExtras,
    FitFacts,
    PerfFacts,
    RowFacts,
    Sweep,
)
from procurement.snapshot.media import media_perf
from procurement.snapshot.memory import inference_fit, training_fit
from procurement.snapshot.schema import AcceleratorRow, Effective, QuoteRow
from procurement.snapshot.sizing import inference_perf
from procurement.snapshot.workload import dec


def _purchase(
    quote: QuoteRow, acc: AcceleratorRow, a: Effective, rate: Decimal
) -> PurchaseSpec | None:
    if quote.get("price_per_node") in (None, ""):
        return None
    power = quote.get("power_kw_per_node")
    return PurchaseSpec(
        capex_per_node=money(quote["price_per_node"], rate),
        life_months=int(quote.get("amortisation_months") or a["purchase_life_months"]),
        price_per_kwh=dec(a["price_per_kwh"]),
        power_kw_per_node=None if power in (None, "") else Decimal(str(power)),
        gpu_tdp_w=None
        if power not in (None, "") or not acc.get("tdp_w")
        else Decimal(acc["tdp_w"] or 0),
        pue=dec(a["pue"]),
        colocation_per_node_month=dec(a["colocation_per_node_month"]),
        support_per_node_year=money(quote.get("support_per_year"), rate),
        cost_of_capital_annual=dec(scalar(a, "cost_of_capital_annual")),
        residual_value_share=dec(scalar(a, "residual_value_share")),
    )


# The quote's figures the cost model does not read, and why (every other price on a quote is
# costed: docs/engine/cost-model.md, "What a quote's prices cost").
SHOWN_NOT_COSTED = {
    "price_as_quoted": "the price per node- or instance-hour as quoted; costed as its "
    "price per GPU-hour",
    "local_nvme_tb_per_node": "a capacity, not a price",
    "snapshot_per_gb_month": "the brief states no snapshot volume to price",
}
NETWORK_BOUNDARY = "network-boundary"  # the checklist item that evidences a private endpoint


def _checklist(ctx: Context, quote_id: int) -> tuple[bool, ChecklistFacts]:
    if ctx.checklist is None:
        return True, {"available": False, "note": "no checklist data"}
    summary = ctx.checklist.get(str(quote_id))
    if summary is None:
        return True, {"available": False, "note": "no checklist data"}
    return bool(summary.get("complete")), {"available": True, **summary}


def _boundary_accepted(ctx: Context, quote: QuoteRow) -> bool:
    """Whether the quote's private-endpoint claim is more than the vendor's word: entered by
    procurement (or a public list price), or a reviewer accepted the network-boundary answer
    behind it. Snapshots frozen before these facts were kept keep their verdict."""
    if not quote.get("entered_by_vendor", False) or quote.get("is_public_list_price"):
        return True
    summary = (ctx.checklist or {}).get(str(quote["id"]))
    if summary is None or "accepted" not in summary:
        return True
    return NETWORK_BOUNDARY in summary["accepted"]


def _price_far(quote: QuoteRow) -> str:
    """The plausibility check's words for a flagged quote ("" when not flagged)."""
    if not quote.get("price_far_from_market"):
        return ""
    check = quote.get("price_check") or {}
    return str(check.get("message") or "The price is far from the market.")


def _evidence_detail(perf: PerfFacts) -> str:
    found = perf.get("evidence")
    if found is None:
        return ""
    parts = [found["reason"]]
    parts += found.get("adjustments") or []
    if point := found.get("operating_point"):
        parts.append(f"at {point}")
    return "; ".join(p for p in parts if p)


def quote_candidate(
    ctx: Context, quote: QuoteRow
) -> tuple[CandidateInput | None, RowFacts, list[str]]:
    """(engine candidate or None when it cannot be built, row facts, rejection reasons).

    An inference offer is costed in each of its configurations (snapshot/deployments.py);
    the row takes the one the engine keeps and lists the others as alternatives."""
    acc = ctx.snap["accelerators"][quote["accelerator_slug"]]
    node = max(1, int(quote.get("gpus_per_node") or 1))
    cap = quote.get("max_gpus_available") or None
    gpu = gpu_spec_of(acc, gpus_per_node=node)
    fx_ok = ctx.rate(quote["currency"]) is not None
    facts: RowFacts = {
        "kind": "gpu",
        "quote_id": quote["id"],
        "api_route_id": None,
        "label": quote["label"],
        "provider_name": quote["provider_name"],
        "accelerator_name": acc["name"],
        "capacity_model": quote["capacity_model"],
        "fx_missing": not fx_ok,
    }
    reasons: list[str] = []
    boundary = ctx.boundary_reason([quote.get("region", "")])
    private = ctx.private_endpoint_reason(
        quote.get("private_endpoint"), verified=_boundary_accepted(ctx, quote)
    )
    reasons += [r for r in (boundary, private) if r]
    try:
        if ctx.cls == "media":
            sized = [_Sized(1, True, {"note": "media: memory fit is not modelled"}, [])]
            sized[0].perf, sized[0].extras = media_perf(ctx, quote, acc, gpu)
        elif ctx.workload.is_training:
            gpus, fits, fit, fit_reasons = training_fit(ctx, gpu, node, cap)
            precision = ctx.brief["weight_precision"]
            peak, source = peak_dense_tflops(gpu, precision if precision == "fp8" else "bf16")
            sized = [_Sized(gpus, fits, fit, fit_reasons, peak=peak)]
            sized[0].perf = {
                "peak_dense_tflops_per_gpu": peak,
                "peak_source": source,
                "throughput_source": "estimated",
                "latency_source": None,
            }
        else:
            sized = _inference_sized(ctx, quote, acc, gpu, node, cap)
            _errors_hold_for_every_configuration(sized)
    except EngineInputError as exc:
        return None, facts, [f"cannot be sized: {exc.message}"]
    built = [
        (one, _finish(ctx, quote, acc, gpu, node, facts.copy(), reasons + one.reasons, one))
        for one in sized
    ]
    costed = [
        (one.configuration, out)
        for one, out in built
        if out[0] is not None and one.configuration is not None
    ]
    if len(costed) < 2:
        return next((out for _, out in built if out[0] is not None), built[0][1])
    options = [(conf, out[0]) for conf, out in costed if out[0] is not None]
    chosen, verdicts = choose_configuration(ctx.workload, options)
    keep = costed[chosen][1]
    keep[1]["configurations"] = [verdict_facts(v) for v in verdicts]
    return keep


@dataclass
class _Sized:
    """One configuration of the offer: its fit and its performance."""

    gpus: int
    fits: bool
    fit: FitFacts
    reasons: list[str]
    perf: PerfFacts = field(default_factory=PerfFacts)
    extras: EngineExtras = field(default_factory=EngineExtras)
    latency_ok: bool | None = None
    peak: float | None = None
    configuration: Configuration | None = None


def _errors_hold_for_every_configuration(sized: list[_Sized]) -> None:
    """A measured error rate over the brief's maximum refuses the offer's estimated shapes too:
    failed requests come from the serving stack, which a roofline estimate knows nothing of,
    so an untested shape must not pass where the measured one failed."""
    over = next(
        (
            found
            for one in sized
            if one.configuration is not None
            and one.configuration.measured
            and (found := one.perf.get("error_rate_over"))
        ),
        None,
    )
    if over is None:
        return
    for one in sized:
        if not one.perf.get("error_rate_over"):
            one.perf["error_rate_over"] = f"{over} (measured on this offer)"


def _inference_sized(
    ctx: Context,
    quote: QuoteRow,
    acc: AcceleratorRow,
    gpu: GpuSpec,
    node: int,
    cap: int | None,
) -> list[_Sized]:
    gpus, fits, fit, fit_reasons = inference_fit(ctx, gpu, node, cap)
    used: set[int | str | None] = set()
    if not fits:
        precision = str(ctx.brief.get("weight_precision") or "")
        configs = [estimated(gpus, node, precision, "memory_minimum")]
    else:
        configs, used = quote_configurations(ctx, quote, acc, gpu, node, cap, gpus)
    out = []
    for conf in configs:
        if conf.gpus_per_replica == gpus:
            one = _Sized(gpus, fits, fit, list(fit_reasons), configuration=conf)
        else:
            at = inference_fit(ctx, gpu, node, cap, conf.gpus_per_replica)
            one = _Sized(at[0], at[1], at[2], at[3], configuration=conf)
        judged = ctx if conf.measured or not used else ctx.without_results(used)
        one.perf, one.extras = inference_perf(judged, quote, acc, gpu, one.gpus)
        one.perf["configuration"] = configuration_facts(conf)
        perf = one.perf
        one.latency_ok = latency_met(
            ctx.brief, perf.get("ttft_p95_ms"), perf.get("itl_p95_ms"), perf.get("e2e_p99_ms")
        )
        if perf.get("latency_missed"):  # measured over a target (snapshot/evidence.py)
            one.latency_ok = False
        out.append(one)
    return out


def _finish(
    ctx: Context,
    quote: QuoteRow,
    acc: AcceleratorRow,
    gpu: GpuSpec,
    node: int,
    facts: RowFacts,
    reasons: list[str],
    sized: _Sized,
) -> tuple[CandidateInput | None, RowFacts, list[str]]:
    """The engine candidate of one configuration, and the row facts it shows."""
    training = ctx.workload.is_training
    gpus, fits, fit, perf, peak, latency_ok = (
        sized.gpus,
        sized.fits,
        sized.fit,
        sized.perf.copy(),
        sized.peak,
        sized.latency_ok,
    )
    cap = quote.get("max_gpus_available") or None
    rate = ctx.rate(quote["currency"])
    fx_ok = rate is not None
    conv = rate if rate is not None else Decimal(1)  # never used for money shown: row is blocked
    boundary = ctx.boundary_reason([quote.get("region", "")])
    private = ctx.private_endpoint_reason(
        quote.get("private_endpoint"), verified=_boundary_accepted(ctx, quote)
    )
    ok, checklist = _checklist(ctx, quote["id"])
    extras = sized.extras
    if over := perf.get("error_rate_over"):
        reasons.append(over)  # the brief's maximum error rate is a gate
    facts["gpus"] = gpus
    facts["fit"] = fit
    facts["performance"] = perf
    facts["checklist"] = checklist
    facts["perf_source"] = perf.get("throughput_source", "estimated")
    throughput: Range | None = None
    error_group = ""
    unit: ThroughputUnit = "tokens_per_s"
    if ctx.cls == "media" and (outputs := perf.get("outputs_per_s")):
        throughput = ctx.spread(outputs, perf["throughput_source"])
        unit = "outputs_per_s"
    elif not training and (tokens := perf.get("tokens_per_s")):
        throughput = ctx.spread(tokens, perf["throughput_source"], extras.widen)
        fitted = perf.get("estimate") if perf["throughput_source"] == "estimated" else None
        if fitted is not None:
            low, high = fitted["band"]
            throughput = Range(tokens * low, tokens, tokens * high)
            error_group = fitted["error_group"]
        # the ledger's ratios are measured ÷ the unfitted roofline: they move that figure
        roofline = perf.get("roofline_tokens_per_s") or tokens
        if perf["throughput_source"] == "estimated" and (
            calibrated := calibrated_spread(ctx, float(roofline), acc["slug"])
        ):
            throughput, perf["calibration_applied"] = calibrated
            error_group = ""  # the ledger's own spread, measured on this accelerator
            # the row shows the throughput it is costed at; the roofline figure stays beside it
            perf["estimated_tokens_per_s"] = roofline
            perf["tokens_per_s"] = round(throughput.likely, 3)
    fabric = quote.get("inter_node_bandwidth_gbps")
    purchase = None
    price: Decimal | None = None
    if quote["capacity_model"] == "purchase":
        purchase = _purchase(quote, acc, ctx.a, conv)
        if purchase is None:
            return None, facts, ["the purchase quote has no price per node"]
    elif quote.get("price_per_gpu_hour") in (None, ""):
        return None, facts, ["the quote has no price per GPU-hour"]
    else:
        price = money(quote["price_per_gpu_hour"], conv)
    facts["detail"] = {
        "quote_version": quote["version"],
        "quoted_at": quote["quoted_at"],
        "valid_until": quote.get("valid_until"),
        "region": quote.get("region", ""),
        "currency": quote["currency"],
        "fx_rate": None if rate is None else format(rate, "f"),
        "term_months": int(quote.get("term_months") or 0),
        "min_commitment_gpus": int(quote.get("min_commitment_gpus") or 0),
        # what the vendor can deliver, and when: the whole peak fleet must fit
        "capacity": {
            "max_gpus_available": int(cap) if cap else None,
            "available_from": quote.get("capacity_available_from"),
            "lead_time_days": quote.get("capacity_lead_time_days"),
        },
        "stale": ctx.is_stale(quote["quoted_at"], quote.get("valid_until")),
    }
    try:
        cand = CandidateInput(
            id=quote_key(quote["id"]),
            label=quote["label"],
            kind="gpu",
            capacity_model=quote["capacity_model"],
            accelerator=acc["slug"],
            price_per_gpu_hour=price,
            purchase=purchase,
            gpus_per_replica=gpus,
            gpus_per_node=node,
            throughput_per_replica=throughput,
            throughput_unit=unit,
            perf_source=facts["perf_source"],
            peak_dense_tflops_per_gpu=peak,
            p95_ttft_ms=perf.get("ttft_p95_ms"),
            p99_e2e_ms=perf.get("e2e_p99_ms"),
            latency_source=perf.get("latency_source"),
            min_commitment_gpu_hours_per_month=Decimal(int(quote.get("min_commitment_gpus") or 0))
            * HOURS_PER_MONTH,
            term_months=int(quote.get("term_months") or 0),
            overage_rate_per_gpu_hour=None
            if quote.get("overage_rate_per_gpu_hour") in (None, "")
            else money(quote.get("overage_rate_per_gpu_hour"), conv),
            # the same stated default as beside an API when the offer prices no storage
            storage_price_per_gb_month=money(quote.get("storage_per_gb_month"), conv)
            if quote.get("storage_per_gb_month") not in (None, "")
            else dec(scalar(ctx.a, "api_storage_per_gb_month")),
            storage_price_is_default=quote.get("storage_per_gb_month") in (None, ""),
            egress_price_per_gb=money(quote.get("egress_per_gb"), conv),
            public_ip_per_month=money(quote.get("public_ip_per_month"), conv),
            load_balancer_per_month=money(quote.get("load_balancer_per_month"), conv),
            private_networking_per_month=money(quote.get("private_networking_per_month"), conv),
            idle_billed=bool(quote.get("idle_billed", True)),
            fits=fits,
            data_boundary_ok=boundary is None and private is None,
            checklist_complete=ok,
            fx_available=fx_ok,
            latency_met=latency_ok,
            ineligible_reasons=tuple(reasons),
            fits_at_p95_context=fits,
            headroom_pct=fit.get("headroom_pct") if fits else None,
            crosses_nodes=gpus > node,
            interconnect_gbps=acc["spec"].get("interconnect_gbps"),
            fabric_gbps=float(fabric) / 8 / node if fabric else None,
            has_acceptance_data=bool(perf.get("has_acceptance_data")),
            quote_age_days=rounded(ctx.age_days(quote["quoted_at"]), 1),
            quote_stale=facts["detail"]["stale"],
            quote_expired_on=ctx.expired_on(quote.get("valid_until")),
            capacity_starts_in_days=ctx.days_until_capacity(
                quote.get("capacity_available_from"), quote.get("capacity_lead_time_days")
            ),
            unit_of_sale=quote.get("unit_of_sale") or "",
            spot_rework_share=None
            if (share := quote.get("spot_rework_share")) in (None, "") or share is None
            else float(share),
            evidence_key=extras.evidence_key,
            evidence_detail=_evidence_detail(perf),
            acceptance_rate=extras.acceptance_rate,
            failure_rate=extras.failure_rate,
            itl_p95_ms=perf.get("itl_p95_ms"),
            fits_at_context_window=fit.get("fits_at_context_window"),
            headroom_status=fit.get("status", ""),
            price_far_from_market=_price_far(quote),
            price_far_unverified=(quote.get("price_check") or {}).get("confirmed_by") != "staff",
            max_gpus_available=int(cap) if cap else None,
            accelerator_name=acc["name"],
            throughput_error_group=error_group,
        )
    except EngineInputError as exc:
        return None, facts, [f"cannot be costed: {exc.message}"]
    sweep = extras.sweep
    if sweep is not None and fx_ok:
        # costed after the ranking, for the rows the pages chart (snapshot/sweeps.py)
        facts[SWEEP_FACT] = sweep
    return cand, facts, []


def sweep_costs(workload: WorkloadInput, cand: CandidateInput, sweep: Sweep) -> list[CostedPoint]:
    """Every point of the row's sweep costed by the engine, frozen with the row:
    the charts read these, never recompute them."""
    return point_costs(
        workload,
        cand,
        sweep.points,
        sweep.slo,
        realtime=sweep.goodput_counts,
        chosen_label=sweep.chosen_label,
        throughput_factor=sweep.throughput_factor,
        base_acceptance=sweep.base_acceptance,
    )
