"""Forecast against actual for one approved decision and one month, and the gap's drivers.

Cost per accepted output ``C = spend / accepted outputs``. The GPU part of the spend is
modelled as the engine costs it (engine/cost, "billed_h"):

    billed GPU-hours  H = (A / α) × g / U
    C(P, A, U, α, O)    = P × g / (α × U) + O / A

with P the price per GPU-hour, A the accepted outputs, α the acceptance share (accepted /
completed), U the utilisation (busy share of the billed GPU-hours), O the other charges of
the provider (storage, network, …) and g the GPU-hours one completed output takes, from the
forecast: ``g = H_f × U_f × α_f / A_f``. The forecast state reproduces the forecast cost
exactly; the actual state uses the billed price ``P_a = GPU cost / GPU-hours``, the measured
acceptance share and the utilisation the bill implies, ``U_a = (A_a / α_a) × g / H_a`` (so
a throughput better or worse than forecast shows as utilisation).

The gap ``C_a − C_f`` is split by changing one factor at a time from forecast to actual, in
the order price → volume → utilisation → acceptance → other charges (sequential
substitution); the five parts add up to the gap exactly. Without GPU-hours on either side
(a model API route, or a bill with no hour rows) only volume and other charges are separated.

The drift flag is raised when ``|C_a / C_f − 1|`` exceeds the tolerance.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal, localcontext

PRECISION = 40
DRIVERS = (
    ("price", "Price per GPU-hour"),
    ("volume", "Volume of accepted outputs"),
    ("utilisation", "Utilisation of billed GPU-hours"),
    ("acceptance", "Acceptance share"),
    ("other", "Other charges (storage, network, …)"),
)


@dataclass(frozen=True, slots=True)
class Forecast:
    """What the approved row forecast for one month (provider-billed lines only)."""

    spend: Decimal
    accepted_outputs: Decimal
    acceptance: Decimal
    gpu_spend: Decimal | None = None
    gpu_hours: Decimal | None = None
    utilisation: Decimal | None = None


@dataclass(frozen=True, slots=True)
class Actual:
    """What the bill and the team's counts say for the same month."""

    spend: Decimal
    accepted_outputs: Decimal
    acceptance: Decimal
    gpu_cost: Decimal = Decimal(0)
    gpu_hours: Decimal = Decimal(0)


@dataclass(frozen=True, slots=True)
class Driver:
    name: str
    label: str
    per_output: Decimal  # its part of the gap in cost per accepted output


@dataclass(frozen=True, slots=True)
class Reconciliation:
    forecast_unit_cost: Decimal
    actual_unit_cost: Decimal
    cost_ratio: Decimal  # actual / forecast cost per accepted output
    forecast_utilisation: Decimal | None
    actual_utilisation: Decimal | None
    forecast_price: Decimal | None
    actual_price: Decimal | None
    drivers: tuple[Driver, ...]
    drift: bool
    note: str = ""


class ReconcileError(ValueError):
    """The inputs cannot be reconciled (no accepted outputs, a zero forecast), in words."""


def _check(forecast: Forecast, actual: Actual) -> None:
    if forecast.accepted_outputs <= 0 or forecast.spend <= 0:
        raise ReconcileError("The approved row forecasts no spend or no accepted outputs.")
    if actual.accepted_outputs <= 0:
        raise ReconcileError("Enter the month's accepted outputs (more than zero) first.")
    for name, share in (("forecast", forecast.acceptance), ("measured", actual.acceptance)):
        if not 0 < share <= 1:
            raise ReconcileError(f"The {name} acceptance share must be above 0 and at most 1.")


def _gpu_model(forecast: Forecast, actual: Actual) -> bool:
    return bool(
        forecast.gpu_spend
        and forecast.gpu_hours
        and forecast.utilisation
        and actual.gpu_hours > 0
        and forecast.gpu_spend > 0
    )


def _more_than_busy(forecast: Forecast, actual: Actual) -> str:
    """Why the bill's hours cannot be GPU-hours, or "": a utilisation above 1 means the month
    served more outputs than its GPU-hours could at the forecast's own rate: the hours are
    instance- or node-hours (P18), and a split by price and utilisation would blame the price."""
    if not _gpu_model(forecast, actual):
        return ""
    assert forecast.gpu_hours is not None  # noqa: S101 - checked by _gpu_model
    assert forecast.utilisation is not None  # noqa: S101
    g = forecast.gpu_hours * forecast.utilisation * forecast.acceptance / forecast.accepted_outputs
    utilisation = (actual.accepted_outputs / actual.acceptance) * g / actual.gpu_hours
    if utilisation <= 1:
        return ""
    return (
        f"The bill's {actual.gpu_hours:,.0f} hours would be {utilisation:.0%} busy: they look "
        "like instance- or node-hours, not GPU-hours. Set the GPUs per billed instance and "
        "import the bill again; until then only volume and the other charges are separated."
    )


def reconcile(forecast: Forecast, actual: Actual, *, tolerance: Decimal) -> Reconciliation:
    """The month's comparison of forecast and actual (see the module docstring)."""
    _check(forecast, actual)
    with localcontext() as ctx:
        ctx.prec = PRECISION
        c_f = forecast.spend / forecast.accepted_outputs
        c_a = actual.spend / actual.accepted_outputs
        parts: dict[str, Decimal] = dict.fromkeys((name for name, _ in DRIVERS), Decimal(0))
        u_f = u_a = p_f = p_a = None
        note = ""
        impossible = _more_than_busy(forecast, actual)
        if impossible:
            note = impossible
        if _gpu_model(forecast, actual) and not impossible:
            assert forecast.gpu_spend is not None  # noqa: S101 - checked by _gpu_model
            assert forecast.gpu_hours is not None  # noqa: S101
            assert forecast.utilisation is not None  # noqa: S101
            a_f, a_a = forecast.accepted_outputs, actual.accepted_outputs
            al_f, al_a = forecast.acceptance, actual.acceptance
            u_f = forecast.utilisation
            g = forecast.gpu_hours * u_f * al_f / a_f
            p_f = forecast.gpu_spend / forecast.gpu_hours
            p_a = actual.gpu_cost / actual.gpu_hours
            u_a = (a_a / al_a) * g / actual.gpu_hours
            o_f = forecast.spend - forecast.gpu_spend

            def cost(p: Decimal, a: Decimal, u: Decimal, al: Decimal, o: Decimal) -> Decimal:
                return p * g / (al * u) + o / a

            steps = [
                c_f,
                cost(p_a, a_f, u_f, al_f, o_f),
                cost(p_a, a_a, u_f, al_f, o_f),
                cost(p_a, a_a, u_a, al_f, o_f),
                cost(p_a, a_a, u_a, al_a, o_f),
                c_a,
            ]
            for (name, _), before, after in zip(DRIVERS, steps[:-1], steps[1:], strict=True):
                parts[name] = after - before
        else:
            spread = forecast.spend / actual.accepted_outputs
            parts["volume"] = spread - c_f
            parts["other"] = c_a - spread
            note = note or (
                "No GPU-hours to compare (a model API, or a bill without hour rows): only "
                "volume and the other charges are separated."
            )
        ratio = c_a / c_f
        drift = abs(ratio - 1) > tolerance
    return Reconciliation(
        forecast_unit_cost=c_f,
        actual_unit_cost=c_a,
        cost_ratio=ratio,
        forecast_utilisation=u_f,
        actual_utilisation=u_a,
        forecast_price=p_f,
        actual_price=p_a,
        drivers=tuple(Driver(name, label, parts[name]) for name, label in DRIVERS),
        drift=drift,
        note=note,
    )
