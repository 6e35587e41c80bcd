"""The load a run was measured under, given at upload when the file does not state it.

AIPerf's summary CSV (and other single-point summaries) carry no concurrency, so single-point
files grouped into one sweep could not be placed on the concurrency axis: their points read
"run 1 (result N)" and the engine could not say where it read the cost. The
upload may give the concurrency and the request rate; each is used only when the file does
not state it. A value contradicting the file's is refused (the file is the evidence); an
equal one is accepted. A given value is stored on the result's workload and copied into its
single operating point, so the point is labelled and ordered like a point of a sweep file.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from benchmarks.errors import UploadRejected
from benchmarks.parsers.types import ParsedResult
from core.values import finite_or_none

if TYPE_CHECKING:
    from benchmarks.models import BenchmarkResult

# (row field, operating point key, the words a message uses, how a value is written)
_LOADS = (
    ("concurrency", "concurrency", "concurrency", "{:g}"),
    ("request_rate", "request_rate_per_s", "request rate", "{:g}/s"),
)


def _same(a: float, b: float) -> bool:
    # The file writes 2 decimals (AIPerf CSV) or an int; the form a whole number.
    return math.isclose(a, b, rel_tol=1e-6, abs_tol=1e-6)


def _stated(parsed: ParsedResult) -> dict[str, float | None]:
    metrics = parsed.metrics
    return {
        "concurrency": finite_or_none(metrics.concurrency, strings=False),
        "request_rate": finite_or_none(metrics.request_rate, strings=False),
    }


def check_given_load(
    parsed: ParsedResult, *, concurrency: float | None, request_rate: float | None
) -> None:
    """Refuse (nothing stored) a given load the file contradicts, or one a file of several
    runs cannot take (which run would it describe?)."""
    given = {"concurrency": concurrency, "request_rate": request_rate}
    check_values(concurrency=concurrency, request_rate=request_rate)
    stated = _stated(parsed)
    for field, _, words, shown in _LOADS:
        value, file_value = given[field], stated[field]
        if value is None or file_value is None or _same(value, file_value):
            continue
        raise UploadRejected(
            f"The file states {words} {shown.format(file_value)}, not "
            f"{shown.format(value)}: leave the {words} empty (the file's is kept) or upload "
            f"the file of the run at {words} {shown.format(value)}.",
            field=field,
        )
    unstated = [f for f, _, _, _ in _LOADS if given[f] is not None and stated[f] is None]
    if unstated and len(parsed.operating_points) > 1:
        words = " and ".join(w for f, _, w, _ in _LOADS if f in unstated)
        raise UploadRejected(
            f"The file holds {len(parsed.operating_points)} runs; a {words} given at upload "
            "describes a file of one run: leave it empty, or upload each run on its own "
            "with its own value and one sweep name.",
            field=unstated[0],
        )


def check_values(*, concurrency: float | None, request_rate: float | None) -> None:
    """Shape the service re-checks whatever surface called it: positive, finite numbers."""
    for field, value, words in (
        ("concurrency", concurrency, "Concurrency"),
        ("request_rate", request_rate, "Request rate"),
    ):
        if value is None:
            continue
        number = finite_or_none(value, strings=False)
        if number is None or number <= 0:
            raise UploadRejected(
                f"{words} must be a number above 0 (requests in flight, or per second).",
                field=field,
            )


def apply_given_load(result: BenchmarkResult, parsed: ParsedResult, given: dict[str, Any]) -> None:
    """After a parse: the load given at upload (``given``, the row's values before the parse)
    is kept where the file states none, and copied into the file's single operating point;
    where the file states another value, the file's is kept and the notes say so (a large
    file is checked only after its upload, so it cannot be refused then)."""
    stated = _stated(parsed)
    points = (result.metrics or {}).get("operating_points") or []
    single = points[0] if len(points) == 1 and isinstance(points[0], dict) else None
    copied = False
    for field, point_key, words, shown in _LOADS:
        value = finite_or_none(given.get(field), strings=False)
        if value is None:
            continue
        file_value = stated[field]
        if file_value is not None:
            if not _same(value, file_value):
                setattr(result, field, file_value)
                result.parse_notes.append(
                    f"The file states {words} {shown.format(file_value)}; the {words} given "
                    f"at upload ({shown.format(value)}) was not used."
                )
            continue
        if single is None:
            setattr(result, field, None)  # a file of several runs: which would it describe?
            result.parse_notes.append(
                f"The {words} given at upload ({shown.format(value)}) was not used: the file "
                "holds several runs."
            )
            continue
        setattr(result, field, value)
        if single.get(point_key) is None:
            single[point_key] = value
            copied = True
        result.parse_notes.append(
            f"{words.capitalize()} {shown.format(value)} as given at upload (the file does "
            "not state it)."
        )
    if copied and single is not None:
        single["label"] = point_label(single, str(single.get("label") or ""))


def point_label(point: dict[str, Any], fallback: str) -> str:
    """The label a sweep file's parser gives a point (parsers/_points.run_label's words)."""
    concurrency = finite_or_none(point.get("concurrency"), strings=False)
    if concurrency is not None:
        return f"concurrency {concurrency:g}"
    rate = finite_or_none(point.get("request_rate_per_s"), strings=False)
    if rate is not None:
        return f"request rate {rate:g}/s"
    return fallback
