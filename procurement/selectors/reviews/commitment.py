"""A row's commitment as the review screens and exports state it (ADR 0006).

The engine writes `detail.commitment_usd` and `detail.commitment` (engine/commitment.py) on
every costed row; this reads them back as money and a term in words, so the page, the CSV and
the XLSX say the same thing. A training run on fixed capacity also carries the run's share.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import Any

CENT = Decimal("0.01")


@dataclass(frozen=True, slots=True)
class RowCommitment:
    commitment_usd: Decimal
    term: str  # "12-month term", "purchase", "3-month horizon", "the run"
    run_share_usd: Decimal | None = None


def _money(value: Any) -> Decimal | None:
    if value is None:
        return None
    try:
        number = Decimal(str(value))
    except (InvalidOperation, ValueError):
        return None
    return number.quantize(CENT) if number.is_finite() else None


def _term(found: dict[str, Any]) -> str:
    basis = str(found.get("basis") or "")
    if "purchase" in basis:
        return "purchase"
    contract, spend = _money(found.get("contract_usd")), _money(found.get("expected_spend_usd"))
    if contract is not None and spend is not None and spend > contract:
        # The larger figure counts (ADR 0006): the horizon's spend, not the short term.
        return f"{found.get('horizon_months')}-month horizon, above the contract"
    if found.get("contract_usd") is not None:
        months = found.get("months_counted")
        # Without a stated term the engine counts the horizon; saying so keeps it honest.
        suffix = " (no stated term)" if basis.endswith("no_term") else ""
        return f"{months}-month term{suffix}" if months else f"contract{suffix}"
    if basis.startswith("training"):
        return "the run"
    months = found.get("horizon_months")
    return f"{months}-month horizon" if months else "horizon"


def row_commitment(detail: Any) -> RowCommitment | None:
    """The commitment of one row from its `detail`, or None when the engine stated none."""
    if not isinstance(detail, dict):
        return None
    total = _money(detail.get("commitment_usd"))
    if total is None:
        return None
    found = detail.get("commitment")
    found = found if isinstance(found, dict) else {}
    return RowCommitment(
        commitment_usd=total,
        term=_term(found) if found else "",
        run_share_usd=_money(found.get("run_share_usd")),
    )
