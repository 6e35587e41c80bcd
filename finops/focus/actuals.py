"""The team's counts of accepted outputs per month, from a CSV or a vLLM metrics scrape.

CSV: a header with `month` (YYYY-MM), `accepted_outputs` and `acceptance_share` (the share of
completed outputs the team accepted, above 0 and at most 1); one row per month. Any bad cell
refuses the whole file naming the row and the column.

vLLM's Prometheus endpoint (`/metrics`) exposes cumulative counters since the server started;
a scrape saved to a file is read with `prometheus_client`'s text parser. The completed
requests are `vllm:request_success_total` summed over its label sets (finish reasons, models)
and the generated tokens `vllm:generation_tokens_total`. A scrape taken at the start of the
month may be given too: the month's counts are then end minus start (a counter that went
down means the server restarted in between, and the file is refused). Accepted outputs are the
completed requests × the acceptance share the team measured.
"""

from __future__ import annotations

import csv
import io
import re
from dataclasses import dataclass
from datetime import date
from decimal import Decimal, InvalidOperation

from prometheus_client.parser import text_string_to_metric_families

MONTH = re.compile(r"^(\d{4})-(\d{2})$")
CSV_COLUMNS = ("month", "accepted_outputs", "acceptance_share")
SUCCESS = "vllm:request_success_total"
TOKENS = "vllm:generation_tokens_total"


class ActualsError(ValueError):
    """A file of counts that cannot be used, naming the row and column where it can."""


@dataclass(frozen=True, slots=True)
class MonthCount:
    month: date  # the first day of the month
    accepted_outputs: Decimal
    acceptance_share: Decimal
    completed_outputs: Decimal | None = None
    generation_tokens: Decimal | None = None


@dataclass(frozen=True, slots=True)
class VllmCounters:
    request_success: Decimal
    generation_tokens: Decimal | None


def parse_month(text: str) -> date:
    found = MONTH.match(text.strip())
    if not found or not 1 <= int(found.group(2)) <= 12:
        raise ValueError(f"{text!r} is not a month written YYYY-MM")
    return date(int(found.group(1)), int(found.group(2)), 1)


def check_share(value: Decimal) -> Decimal:
    if not (value.is_finite() and 0 < value <= 1):
        raise ValueError("the acceptance share must be above 0 and at most 1 (0.92 for 92 %)")
    return value


# Outputs and tokens are kept with 20 digits before the point; a month of any real service is
# far below this, and 1E+30, +Inf or NaN used to reach the database and fail there (R3).
COUNT_MAX = Decimal(10) ** 18


def bounded_count(value: Decimal, raw: object) -> Decimal:
    """`value` when it is a finite count below COUNT_MAX; a ValueError in words otherwise."""
    if not value.is_finite():
        raise ValueError(f"{raw!r} is not a number")
    if abs(value) >= COUNT_MAX:
        raise ValueError(f"{raw!r} is more than any month counts (under {COUNT_MAX:.0E})")
    return value


def _number(raw: str) -> Decimal:
    try:
        value = Decimal(raw.strip())
    except InvalidOperation:
        raise ValueError(f"{raw!r} is not a number") from None
    return bounded_count(value, raw)


def parse_actuals_csv(data: bytes) -> list[MonthCount]:
    """Every month of a counts CSV; ActualsError at the first bad row (nothing is kept)."""
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise ActualsError("The file is not UTF-8 text.") from None
    reader = csv.DictReader(io.StringIO(text))
    header = [name.strip() for name in reader.fieldnames or []]
    if missing := [name for name in CSV_COLUMNS if name not in header]:
        raise ActualsError(f"The CSV lacks the column(s) {', '.join(missing)} in its header.")
    reader.fieldnames = header
    out: list[MonthCount] = []
    seen: set[date] = set()
    for number, row in enumerate(reader, start=1):
        column = "month"
        try:
            month = parse_month(row.get("month") or "")
            column = "accepted_outputs"
            accepted = _number(row.get("accepted_outputs") or "")
            if accepted < 0:
                raise ValueError("accepted outputs cannot be negative")
            column = "acceptance_share"
            share = check_share(_number(row.get("acceptance_share") or ""))
        except ValueError as exc:
            raise ActualsError(f"Row {number}, column {column}: {exc}.") from None
        if month in seen:
            raise ActualsError(f"Row {number}, column month: {month:%Y-%m} appears twice.")
        seen.add(month)
        out.append(MonthCount(month=month, accepted_outputs=accepted, acceptance_share=share))
    if not out:
        raise ActualsError("The CSV has a header but no rows.")
    return out


def parse_vllm_metrics(data: bytes) -> VllmCounters:
    """The two counters of one scrape; ActualsError when it has no request counter."""
    try:
        families = list(text_string_to_metric_families(data.decode("utf-8")))
    except (UnicodeDecodeError, ValueError) as exc:
        raise ActualsError(f"The file is not Prometheus metrics text ({exc}).") from None
    sums: dict[str, Decimal] = {}
    for family in families:  # with or without its `# TYPE` line (untyped keeps `_total`)
        for sample in family.samples:
            if sample.name in (SUCCESS, TOKENS):
                try:
                    value = bounded_count(Decimal(str(sample.value)), sample.value)
                    sums[sample.name] = bounded_count(
                        sums.get(sample.name, Decimal(0)) + value, "their sum"
                    )
                except ValueError as exc:
                    raise ActualsError(f"The counter {sample.name}: {exc}.") from None
    if SUCCESS not in sums:
        raise ActualsError(
            "The scrape has no vllm:request_success_total counter: save the vLLM server's "
            "/metrics page as it is."
        )
    return VllmCounters(request_success=sums[SUCCESS], generation_tokens=sums.get(TOKENS))


def month_from_scrapes(
    month: date, share: Decimal, end: VllmCounters, start: VllmCounters | None = None
) -> MonthCount:
    """The month's counts from its end scrape (minus its start scrape when given)."""
    completed = end.request_success - (start.request_success if start else Decimal(0))
    tokens = end.generation_tokens
    if start is not None and tokens is not None and start.generation_tokens is not None:
        tokens -= start.generation_tokens
    if completed < 0 or (tokens is not None and tokens < 0):
        raise ActualsError(
            "A counter is lower at the end of the month than at its start: the server "
            "restarted in between, so the two scrapes cannot be subtracted."
        )
    return MonthCount(
        month=month,
        accepted_outputs=completed * check_share(share),
        acceptance_share=share,
        completed_outputs=completed,
        generation_tokens=tokens,
    )
