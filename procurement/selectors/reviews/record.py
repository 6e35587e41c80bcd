"""The decision record's reads: brief facts, assumptions, the side-by-side comparison of two
rows, and the plain data the CSV/XLSX exports lay out."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from django.db.models import Case, Count, Min, Q, Subquery, When

from catalog.models import Quote
from core.cost_lines import ordered_names
from core.templatetags.numbers import human, money
from engine.cost.assumptions import PURCHASE_ITEMS, WORKLOAD_ITEMS
from procurement import exports
from procurement.models import CandidateResult, Comparison
from procurement.models.comparisons import refusals_of
from procurement.selectors.reviews.commitment import row_commitment
from procurement.selectors.reviews.frozen import new_since
from procurement.selectors.reviews.pair import pair_delta
from procurement.selectors.reviews.plan import approved_plan_parts_of, part_rows
from procurement.selectors.reviews.rows import (
    OFFER_RELATED,
    RANKED,
    candidates_of,
    entered_by_label,
    ordered_lines,
)

if TYPE_CHECKING:
    from accounts.models import User


def flatten(data: Any, prefix: str = "") -> list[tuple[str, Any]]:
    """Nested assumptions as (dotted name, value) pairs; lists joined as text."""
    if isinstance(data, dict):
        out: list[tuple[str, Any]] = []
        for key in sorted(data, key=str):
            out += flatten(data[key], f"{prefix}{key}.")
        return out
    if isinstance(data, list | tuple):
        data = ", ".join(str(v) for v in data)
    return [(prefix.rstrip("."), data)]


def assumptions_of(comparison: Comparison) -> list[tuple[str, Any]]:
    result = comparison.result or {}
    applied = result.get("assumptions_applied", []) or []
    return [
        ("Seed", comparison.seed),
        ("Monte Carlo samples", comparison.samples),
        ("Engine version", comparison.engine_version),
        ("Brief", str(comparison.brief)),
        *flatten(comparison.assumptions or {}, "override."),
        *engine_assumptions(result.get("assumptions", {}), {str(a.get("name")) for a in applied}),
        *applied_of(comparison),
    ]


def engine_assumptions(data: Any, applied: set[str]) -> list[tuple[str, Any]]:
    """The engine's stated assumptions with each one listed once, beside its source.

    An assumption the "applied" rows give (value and source) is left to them; any other
    workload figure carries its source in brackets instead of a separate
    `workload.assumption_sources.*` line. A source naming no figure keeps its own line."""
    if not isinstance(data, dict) or not isinstance(data.get("workload"), dict):
        return flatten(data or {})
    workload = {k: v for k, v in data["workload"].items() if k not in applied}
    sources = dict(workload.pop("assumption_sources", None) or {})
    out: list[tuple[str, Any]] = []
    for name, value in flatten({**data, "workload": workload}):
        field = name.removeprefix("workload.")
        if field != name and field in sources:
            value = f"{'—' if value is None else value} ({sources.pop(field)})"
        out.append((name, value))
    for field, source in sorted(sources.items()):
        if field not in applied:
            out.append((f"workload.assumption_sources.{field}", source))
    return out


# Applied assumptions that are money, in the comparison's base currency (the snapshot
# converts quote figures such as support per node-year before the engine sees them).
MONEY_ASSUMPTIONS = frozenset(
    [name for name, _, is_money in WORKLOAD_ITEMS if is_money]
    + [f"purchase.{name}" for name, _, is_money in PURCHASE_ITEMS if is_money]
    + ["storage_price_per_gb_month"]
)


def base_currency(comparison: Comparison) -> str:
    # snapshot_facts, not the snapshot: pages of a 20,000-candidate comparison never load it.
    result = comparison.result or {}
    return str(
        result.get("base_currency")
        or comparison.shown_snapshot_facts().get("base_currency")
        or "USD"
    )


def applied_assumptions(comparison: Comparison) -> list[dict[str, Any]]:
    """The applied assumptions for reading: money labelled with its currency and shown
    with two decimals; the rest as the engine stated them."""
    currency = base_currency(comparison)
    out = []
    for item in (comparison.result or {}).get("assumptions_applied", []) or []:
        row = dict(item)
        if item.get("name") in MONEY_ASSUMPTIONS:
            row["label"] = f"{item.get('label')} ({currency})"
            if not item.get("note") and money(item.get("value"), currency) != "—":
                row["value"] = money(item.get("value"), currency)
        out.append(row)
    return out


def applied_of(comparison: Comparison) -> list[tuple[str, Any]]:
    """Every default the engine used, "applied.<name>" or "Applied <name> · <row>" → value."""
    out: list[tuple[str, Any]] = []
    items = applied_assumptions(comparison)
    keys = {str(item["candidate_id"]) for item in items if item.get("candidate_id")}
    labels = dict(comparison.candidates.filter(key__in=keys).values_list("key", "label"))
    for item in items:
        name = f"applied.{item.get('name')}"
        if row := str(item.get("candidate_id") or ""):  # in words, for the row's offer
            name = f"{human(name)} · {labels.get(row, row)}"
        out.append((name, f"{item.get('note') or item.get('value')} ({item.get('source')})"))
    return out


def shown(value: Any) -> Any:
    """Floats to 4 decimals for reading (differences are judged on the raw values)."""
    return round(value, 4) if isinstance(value, float) else value


def side_by_side(a: CandidateResult, b: CandidateResult) -> list[dict[str, Any]]:
    """Every compared figure of two rows, grouped by section, with differences flagged.

    Each pair names its `format`: "amount" (money, the currency and period in the
    label), "unit_price", "pct" (P(cheapest) is a fraction), "thousands", "codes" (warning
    codes, shown as labels with the code as a tooltip) or "" (as it is, via `readable`).
    """

    def section(name: str, pairs: Iterable[tuple[str, Any, Any, str]]) -> list[dict[str, Any]]:
        return [
            {
                "section": name,
                "label": label,
                "a": shown(va),
                "b": shown(vb),
                "format": fmt,
                "differs": va != vb,
                "delta": pair_delta(va, vb, fmt),
            }
            for label, va, vb, fmt in pairs
        ]

    def nested(
        name: str, da: dict[str, Any] | None, db: dict[str, Any] | None
    ) -> list[dict[str, Any]]:
        fa, fb = dict(flatten(da or {})), dict(flatten(db or {}))
        return section(name, ((k, fa.get(k), fb.get(k), "") for k in sorted(set(fa) | set(fb))))

    la, lb = dict(ordered_lines(a.cost_lines or {})), dict(ordered_lines(b.cost_lines or {}))
    line_names = ordered_names(set(la) | set(lb))
    basics = [
        (label, getattr(a, attr), getattr(b, attr), fmt)
        for label, attr, fmt in (
            ("Provider", "provider_name", ""),
            ("Accelerator", "accelerator_name", ""),
            ("Capacity model", "capacity_model", ""),
            ("GPUs", "gpus", "thousands"),
            ("Price per GPU-hour (USD)", "hourly_price_usd", "unit_price"),
            ("Eligible", "eligible", ""),
        )
    ]
    reasons = ("; ".join(a.reasons or []), "; ".join(b.reasons or []))
    basics.append(("Ineligible because", *reasons, ""))
    unit = f"USD {a.unit_label}" if a.unit_label else "USD"
    outcome = [
        (label, getattr(a, attr), getattr(b, attr), fmt)
        for label, attr, fmt in (
            ("Total (USD / month)", "total_usd", "amount"),
            ("Accepted outputs / month", "accepted_outputs", "thousands"),
            (f"Unit cost ({unit})", "unit_cost_usd", "unit_price"),
            (f"Unit cost p10 ({unit})", "p10", "unit_price"),
            (f"Unit cost p50 ({unit})", "p50", "unit_price"),
            (f"Unit cost p90 ({unit})", "p90", "unit_price"),
            ("Probability cheapest", "prob_cheapest", "pct"),
            ("Rank", "rank", ""),
        )
    ]
    codes_a = sorted({w.get("code", "") for w in a.warnings or []} - {""})
    codes_b = sorted({w.get("code", "") for w in b.warnings or []} - {""})
    lines = ((n, la.get(n), lb.get(n), "amount") for n in dict.fromkeys(line_names))
    return [
        *section("Offer", basics),
        *section("Cost lines (USD / month)", lines),
        *section("Outcome", outcome),
        *nested("Fit", a.fit, b.fit),
        *section("Performance", [("Source", a.perf_source, b.perf_source, "")]),
        *nested("Performance", a.performance, b.performance),
        *section("Warnings", [("Codes", codes_a or None, codes_b or None, "codes")]),
        *nested("Checklist", a.checklist, b.checklist),
    ]


def _quote_row(row: CandidateResult) -> dict[str, Any] | None:
    offer = row.quote or row.api_route
    if offer is None:
        return None
    common = {
        "candidate": row.key,
        "id": offer.pk,
        "provider": offer.provider.name,
        "currency": offer.currency,
        "quoted_at": offer.quoted_at.isoformat(),
        "valid_until": offer.valid_until.isoformat() if offer.valid_until else None,
        "stale": offer.is_stale(),
        "entered_by": entered_by_label(row),
    }
    if isinstance(offer, Quote):
        purchase = offer.price_per_gpu_hour is None and offer.price_per_node is not None
        return {
            **common,
            "kind": "quote",
            "offer": offer.title or f"{offer.accelerator} {offer.get_capacity_model_display()}",
            "version": offer.version,
            "capacity_model": offer.get_capacity_model_display(),
            "price": offer.price_per_node if purchase else offer.price_per_gpu_hour,
            "price_unit": "per node" if purchase else "per GPU-hour",
            "source": offer.source_url or offer.source_document,
        }
    return {
        **common,
        "kind": "api route",
        "offer": offer.model_name,
        "version": None,
        "capacity_model": human("api"),
        "price": offer.price_output_per_m_tokens,
        "price_unit": f"per 1M output tokens (input {offer.price_input_per_m_tokens})",
        "source": offer.source_url,
    }


def evidence_of(row: CandidateResult) -> str:
    """The benchmark evidence a row rests on, as frozen in its computed figures and as the
    page's badge says it: "measured: … (benchmark result #3)"; no result, no number."""
    evidence = (row.performance or {}).get("evidence") or {}
    if not evidence:
        return "estimated (no benchmark counted)" if row.kind == "gpu" else ""
    kind = str(evidence.get("kind") or "")
    reason = str(evidence.get("reason") or "").strip()
    # Many reasons open with the kind already ("measured on …", "proxy: …"): say it once.
    text = reason if reason.lower().startswith(kind) else f"{kind}: {reason}".strip(": ")
    adjustments = [str(a) for a in evidence.get("adjustments") or []]
    if adjustments:
        text += "; " + "; ".join(adjustments)
    if point := str(evidence.get("operating_point") or "").strip():
        # The point the row was costed at, not the sweep's last file (issue 37, U3).
        text += f"; costed at {point}"
    result_id = evidence.get("result_id")
    members = [str(m) for m in evidence.get("sweep_result_ids") or []]
    if len(members) > 1:
        listed = ", ".join(f"#{m}" for m in members)
        text += f" (a sweep of {len(members)} benchmark results: {listed})"
    elif result_id not in (None, ""):
        text += f" (benchmark result #{result_id})"
    return text


def warning_words(warning: dict[str, Any]) -> str:
    """ "Weak interconnect: PCIe only between 8 GPUs"; a detail that already opens with the
    label's words is the whole text ("No acceptance data: no acceptance data: …" once)."""
    label, detail = human(warning.get("code")), str(warning.get("detail") or "").strip()
    if not detail:
        return label
    if detail.lower().startswith(label.lower()):
        return detail[:1].upper() + detail[1:]
    return f"{label}: {detail}"


def warnings_in_words(warnings: Iterable[dict[str, Any]] | None) -> str:
    """A row's warnings as the page lists them, one after another."""
    return "; ".join(warning_words(w) for w in warnings or [] if w.get("code"))


KIND_WORDS = {"gpu": "GPU offer", "api": "model API"}


def _commitment_columns(row: CandidateResult) -> dict[str, Any]:
    found = row_commitment(row.detail)
    return {
        "commitment_usd": found.commitment_usd if found else None,
        "commitment_term": found.term if found else "",
        "commitment_run_share_usd": found.run_share_usd if found else None,
    }


def _approved(comparison: Comparison) -> list[dict[str, Any]]:
    """The parts of the plan the comparison approved (none before its last approval)."""
    if comparison.status != Comparison.Status.APPROVED:
        return []
    return part_rows(approved_plan_parts_of(comparison))


def export_data_for(comparison: Comparison, user: User | None = None) -> exports.ExportData:
    """The comparison's rows, assumptions and quote versions as plain values; with a user,
    the evidence that arrived after the compute too (listed apart)."""
    rows = candidates_of(comparison)
    line_names: dict[str, None] = {}
    for row in rows:
        line_names.update(dict.fromkeys(name for name, _ in ordered_lines(row.cost_lines or {})))
    candidates = [
        {
            "key": r.key,
            "label": r.label,
            "kind": KIND_WORDS.get(r.kind, r.kind),
            "provider": r.provider_name,
            "accelerator": r.accelerator_name,
            "capacity_model": human(r.capacity_model) if r.capacity_model else "",
            "gpus": r.gpus,
            "eligible": r.eligible,
            "recommended": r.key == comparison.recommended_key,
            "rank": r.rank,
            "hourly_price_usd": r.hourly_price_usd,
            "price_entered_by": entered_by_label(r),
            "cost_lines": dict(ordered_lines(r.cost_lines or {})),
            "total_usd": r.total_usd,
            **_commitment_columns(r),
            **exports.fleet_columns(r.detail),
            "accepted_outputs": r.accepted_outputs,
            "unit_cost_usd": r.unit_cost_usd,
            "unit_label": r.unit_label,
            "p10": r.p10,
            "p50": r.p50,
            "p90": r.p90,
            "prob_cheapest": r.prob_cheapest,
            "perf_source": r.perf_source,
            "evidence": evidence_of(r),
            "checklist_pct": (r.checklist or {}).get("completeness_pct"),
            "warnings": warnings_in_words(r.warnings),
            "reasons": "; ".join(r.reasons or []),
        }
        for r in rows
    ]
    unit_label = next((r.unit_label for r in rows if r.unit_label), "")
    quotes = [q for q in (_quote_row(r) for r in rows) if q is not None]
    return exports.ExportData(
        title=str(comparison),
        unit_label=unit_label,
        candidates=candidates,
        line_names=list(line_names),
        assumptions=assumptions_of(comparison),
        quotes=quotes,
        new_since=new_since(user, comparison, rows).export_rows() if user is not None else (),
        plan=exports.plan_rows((comparison.result or {}).get("plan"), _approved(comparison)),
    )


# The printable record shows the best eligible rows in full and summarises the rest: a
# 20,000-row comparison would otherwise print thousands of pages. Every row is in the exports;
# a comparison of at most this many rows is printed whole.
RECORD_ROWS = 30


@dataclass(slots=True)
class RecordRows:
    """What the decision record lists: the best eligible rows (plus the chosen row and the
    cheapest per GPU-hour, which the recommendation's reasoning names), the counts, and the
    ineligible rows grouped by the rule that refused them."""

    rows: list[CandidateResult]
    eligible_count: int
    ineligible_count: int
    ineligible_by_reason: list[dict[str, Any]] = field(default_factory=list)

    @property
    def eligible_not_shown(self) -> int:
        return max(0, self.eligible_count - sum(1 for r in self.rows if r.eligible))


def record_rows(comparison: Comparison, *, chosen_pk: int | None = None) -> RecordRows:
    """A few queries whatever the comparison's size (the ineligible rows are read as their
    warnings and reasons only)."""
    base = comparison.candidates.select_related(*OFFER_RELATED)
    counts = comparison.candidates.aggregate(
        total=Count("pk"), eligible=Count("pk", filter=Q(eligible=True))
    )
    total, eligible = counts["total"], counts["eligible"]
    if total <= RECORD_ROWS:  # a small comparison is printed whole
        return RecordRows(
            rows=candidates_of(comparison),
            eligible_count=eligible,
            ineligible_count=total - eligible,
            ineligible_by_reason=ineligible_by_reason(comparison),
        )
    # One query: the best eligible rows, the recommended and chosen rows, the cheapest per
    # GPU-hour (each sort served by an index on the comparison's rows).
    top = base.filter(eligible=True).order_by(*RANKED).values("pk")[:RECORD_ROWS]
    cheapest = (
        base.filter(eligible=True, hourly_price_usd__isnull=False, unit_cost_usd__isnull=False)
        .order_by("hourly_price_usd", "key")
        .values("pk")[:1]
    )
    wanted = Q(key=comparison.recommended_key) if comparison.recommended_key else Q(pk__in=[])
    if chosen_pk is not None:
        wanted |= Q(pk=chosen_pk)
    fetched = list(
        base.filter(Q(pk__in=top) | Q(pk__in=cheapest) | wanted)
        .annotate(
            in_top=Case(When(pk__in=top, then=True), default=False),
            is_cheapest=Case(When(pk__in=cheapest, then=True), default=False),
        )
        .order_by(*RANKED)
    )
    rows: list[CandidateResult] = [r for r in fetched if r.in_top]
    rows += [
        r
        for r in fetched
        if not r.in_top and (r.key == comparison.recommended_key or r.pk == chosen_pk)
    ]
    rows += [r for r in fetched if r.is_cheapest and r not in rows]
    return RecordRows(
        rows=rows,
        eligible_count=eligible,
        ineligible_count=total - eligible,
        ineligible_by_reason=ineligible_by_reason(comparison),
    )


def ineligible_by_reason(comparison: Comparison) -> list[dict[str, Any]]:
    """Ineligible rows counted by what refused them: each blocking warning's code (a row
    refused by two rules counts under both), else the row's first stated reason; with one
    example of the detail (from the first such row). Most frequent first.

    Counted in the database by the stored refusal key: one row of each key is read for its
    codes and details, so the queries and the rows read stay few whatever the size. A row
    written without the key is read whole."""
    refused = comparison.candidates.filter(eligible=False)
    keyed = refused.exclude(refused_by="").values("refused_by").order_by()
    counts = {k["refused_by"]: k["count"] for k in keyed.annotate(count=Count("pk"))}
    # One row of each key (its first), and every row written without a key.
    firsts = keyed.annotate(first=Min("pk")).values("first")
    read = refused.filter(Q(refused_by="") | Q(pk__in=Subquery(firsts))).values_list(
        "pk", "refused_by", "warnings", "reasons"
    )
    found = [
        (pk, counts.get(key, 1) if key else 1, refusals_of(warnings, reasons))
        for pk, key, warnings, reasons in read.iterator(chunk_size=2000)
    ]
    groups: dict[str, dict[str, Any]] = {}
    for _, count, refusals in sorted(found, key=lambda f: f[0]):
        for code, detail in refusals.items():
            group = groups.setdefault(code, {"code": code, "count": 0, "example": detail})
            group["count"] += count
    return sorted(groups.values(), key=lambda g: (-g["count"], g["code"]))
